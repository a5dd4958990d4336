import { IP_GEOLOCATION_ANSWER_COLUMNS } from '../../nodes/shared/csv/answerColumns';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { geoRecord } from '../sandbox/services/geo';
import { csvItem, FILE_NODES, runCsv } from './csvHelpers';
import { answerCells, resultOf, runResult } from './resultFileCases';

/**
 * What only IP Geolocation's file input does: an address the service has no data for (204) is an
 * answer that says so, not a failure; an empty cell is a row without its address (not "locate
 * the caller", as an empty single value is); Fields limits the result file's columns.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const node = FILE_NODES.find((candidate) => candidate.type === 'abstractIpGeolocation')!;
const NO_DATA = 'The service has no location data for 192.168.1.20';
const csv = 'host,ip_address\nweb,8.8.8.8\nlan,192.168.1.20\nmail,2a00:1450:4001::1\n';

describe('IP Geolocation on a file: an address without location data (204)', () => {
	it('a result file row whose status says so, its answer columns empty; counted as answered and as no data', async () => {
		const { items, error } = await runResult(node, { sandbox, items: [csvItem(csv)] });
		expect(error).toBeUndefined();
		const { rows } = await resultOf(items[0]);
		const empty = new Array<string>(IP_GEOLOCATION_ANSWER_COLUMNS.length).fill('');
		expect(rows).toEqual([
			[
				'web',
				'8.8.8.8',
				...answerCells(
					geoRecord('8.8.8.8'),
					IP_GEOLOCATION_ANSWER_COLUMNS,
					IP_GEOLOCATION_ANSWER_COLUMNS,
				),
				'',
				'ok',
			],
			['lan', '192.168.1.20', ...empty, '', `no data: ${NO_DATA}`],
			[
				'mail',
				'2a00:1450:4001::1',
				...answerCells(
					geoRecord('2a00:1450:4001::1'),
					IP_GEOLOCATION_ANSWER_COLUMNS,
					IP_GEOLOCATION_ANSWER_COLUMNS,
				),
				'',
				'ok',
			],
		]);
		expect(items[0].json).toMatchObject({
			rows: 3,
			answered: 3,
			noData: 1,
			failed: { invalidValue: 0, serviceError: 0, planRanOut: 0, keyRejected: 0 },
			nextRow: null,
		});
		expect(sandbox.requests('geo').map((request) => request.status)).toEqual([200, 204, 200]);
	});

	it('one item per row: an item that says so, with its row, on the success output', async () => {
		const { items, errorItems, error } = await runCsv(node, {
			sandbox,
			items: [csvItem(csv)],
			onError: 'continueErrorOutput',
		});
		expect(error).toBeUndefined();
		expect(errorItems).toEqual([]);
		expect(items[1].json).toEqual({
			ip_address: '192.168.1.20',
			no_data: true,
			message: NO_DATA,
			csvRow: { number: 3, columns: { host: 'lan', ip_address: '192.168.1.20' } },
		});
	});
});

describe('IP Geolocation on a file: the rules of its values', () => {
	it("an empty cell is a row without its address, named, and nothing is sent (it does not mean the caller's address)", async () => {
		const { error } = await runCsv(node, {
			sandbox,
			items: [csvItem('host,ip_address\nweb,8.8.8.8\nlan,\n')],
		});
		expect(error?.message).toBe(
			'Invalid IP Address (row 3, column 2): is empty: every row of a file needs an address (only a single IP Address left empty locates the address n8n runs from)',
		);
		expect(error?.description).toBe(
			'Row 3 was not sent, so it cost no credit. Fix its IP address (column 2) in the file and run again.',
		);
		expect(sandbox.requests('geo')).toEqual([]);
	});

	it('Fields limits the request and the result file to the chosen keys; Result Fields picks among those', async () => {
		const { items, error } = await runResult(node, {
			sandbox,
			items: [csvItem('ip_address\n8.8.8.8\n')],
			options: { fields: ['timezone', 'country'] },
		});
		expect(error).toBeUndefined();
		expect(sandbox.requests('geo')[0].query.fields).toBe('timezone,country');
		const { header, rows } = await resultOf(items[0]);
		const columns = [
			'country',
			'timezone.name',
			'timezone.abbreviation',
			'timezone.gmt_offset',
			'timezone.current_time',
			'timezone.is_dst',
		];
		expect(header).toEqual(['ip_address', ...columns, 'other_fields', 'status']);
		const { country, timezone } = geoRecord('8.8.8.8');
		expect(rows).toEqual([
			['8.8.8.8', ...answerCells({ country, timezone }, columns, columns), '', 'ok'],
		]);

		sandbox.reset();
		const picked = await runResult(node, {
			sandbox,
			items: [csvItem('ip_address\n8.8.8.8\n')],
			options: { fields: ['country'], resultFields: ['city'] },
		});
		expect(picked.error?.message).toMatch(
			/^Invalid Result Fields \(resultFields\): "city" is not a field of the service's record \(it has: country\)/,
		);
		expect(sandbox.requests('geo')).toEqual([]);
	});
});
