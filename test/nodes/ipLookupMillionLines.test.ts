import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { properties } from '../../nodes/AbstractIpLookup/properties';
import { useBinaryMode } from '../harness/run';
import { addressPool, logAddresses } from '../sandbox/ipDatabases/accessLog';
import { databaseFileName, databaseFileOf } from '../sandbox/ipDatabases/archives';
import { rowsOf } from '../sandbox/ipDatabases/records';
import { edgeAddresses, lookUp } from './ipLookupHelpers';

/**
 * A million-line web log through IP Database Lookup (Input CSV File, Output Result File, n8n's
 * filesystem binary mode, through n8n-core) with At Most Rows added to the options as the editor
 * adds it, its value left as it comes: the option's own default. A lookup sends nothing, so the
 * option must not cut the file: every row is answered and the summary says the file is done.
 */
beforeAll(async () => await useBinaryMode('filesystem'));
jest.setTimeout(300_000);

const LINES = 1_000_000;

/** The value the editor puts in when At Most Rows is added: the option's default. */
function maxRowsAsAdded(): unknown {
	const options = properties.find(
		(property) => property.name === 'options' && property.type === 'collection',
	);
	const maxRows = (options?.options as INodeProperties[] | undefined)?.find(
		(option) => option.name === 'maxRows',
	);
	expect(maxRows).toBeDefined();
	return maxRows?.default;
}

function webLog(): Buffer {
	const covered = rowsOf('ip-geolocation', 1).flatMap((row) => edgeAddresses(row.network));
	const parts: string[] = ['time,client,request\n'];
	let index = 0;
	for (const address of logAddresses(LINES, addressPool(5000, covered, 3), 5)) {
		parts.push(
			`2026-11-${String((index++ % 28) + 1).padStart(2, '0')}T10:00:00Z,${address},"GET /p?id=${index}, HTTP/1.1"\n`,
		);
	}
	return Buffer.from(parts.join(''));
}

describe('IP Database Lookup over a million-line log, At Most Rows added and left as it comes', () => {
	it('answers every row: no cut at a row limit, nextRow null', async () => {
		const maxRows = maxRowsAsAdded();
		const { items, error } = await lookUp({
			file: {
				bytes: databaseFileOf('ip-geolocation', 'mmdb', 1),
				fileName: databaseFileName('ip-geolocation', 'mmdb'),
			},
			ips: [],
			csvFile: { bytes: webLog(), fileName: 'access-log.csv' },
			parameters: {
				output: 'resultFile',
				resultBinaryPropertyName: 'result',
				addressColumn: 'client',
				options: { maxRows } as IDataObject,
			},
		});
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({
			rows: LINES,
			firstRow: 2,
			lastRow: LINES + 1,
			answered: LINES,
			nextRow: null,
			fileRows: LINES,
		});
		expect(items[0].json.stoppedBy).toBeUndefined();
	});

	it('a number typed into At Most Rows is a slice: the summary says the run stopped there, and where the next starts', async () => {
		const { items, error } = await lookUp({
			file: {
				bytes: databaseFileOf('ip-geolocation', 'mmdb', 1),
				fileName: databaseFileName('ip-geolocation', 'mmdb'),
			},
			ips: [],
			csvFile: {
				bytes: 'time,client\n2026-11-01,8.8.8.8\n2026-11-01,1.1.1.1\n2026-11-02,8.8.4.4\n',
				fileName: 'access-log.csv',
			},
			parameters: {
				output: 'resultFile',
				resultBinaryPropertyName: 'result',
				addressColumn: 'client',
				options: { maxRows: 2 },
			},
		});
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({
			rows: 2,
			firstRow: 2,
			lastRow: 3,
			nextRow: 4,
			stoppedBy: 'atMostRows',
			fileRows: 3,
		});
	});

	it('rows as items: a hint says the run stopped at At Most Rows and where the next starts', async () => {
		const run = await lookUp({
			file: {
				bytes: databaseFileOf('ip-geolocation', 'mmdb', 1),
				fileName: databaseFileName('ip-geolocation', 'mmdb'),
			},
			ips: [],
			csvFile: {
				bytes: 'time,client\n2026-11-01,8.8.8.8\n2026-11-01,1.1.1.1\n2026-11-02,8.8.4.4\n',
				fileName: 'access-log.csv',
			},
			parameters: { addressColumn: 'client', options: { maxRows: 2 } },
		});
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(2);
		expect(JSON.stringify(run.run.data.resultData.runData.Lookup[0].hints ?? [])).toContain(
			'Rows 2 to 3 of the file looked up, as At Most Rows says; it goes on to row 4: Start at Row 4 continues it',
		);
	});
});
