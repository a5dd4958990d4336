import type { IDataObject } from 'n8n-workflow';

import {
	COMPANY_ANSWER_COLUMNS,
	EMAIL_ANSWER_COLUMNS,
	IBAN_ANSWER_COLUMNS,
	IP_GEOLOCATION_ANSWER_COLUMNS,
	VAT_VALIDATION_ANSWER_COLUMNS,
} from '../../nodes/shared/csv/answerColumns';
import { runNode, type InputItem, type NodeRun } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import type { Sandbox } from '../sandbox/server';
import { companyRecord } from '../sandbox/services/company';
import { emailRecord } from '../sandbox/services/email';
import { geoRecord } from '../sandbox/services/geo';
import { isValidIban } from '../sandbox/services/iban';
import { vatValidation } from '../sandbox/services/vat';
import type { LoggedRequest } from '../sandbox/types';

/** Bulk CSV input tests: files as items, the nodes run through n8n-core against the sandbox. */

export const csvItem = (
	text: string | Buffer,
	property = 'data',
	json: IDataObject = {},
): InputItem => ({
	json,
	binary: {
		[property]: {
			bytes: Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8'),
			mimeType: 'text/csv',
			fileName: 'leads.csv',
		},
	},
});

export interface CsvRun {
	sandbox: Sandbox;
	items: InputItem[];
	parameters?: IDataObject;
	options?: IDataObject;
	continueOnFail?: boolean;
	onError?: NodeRun['onError'];
	credential?: IDataObject;
}

/**
 * A node that takes a CSV file with its values in a chosen column, as the shared file cases
 * (resultFileCases.ts, csvResume, csvSlices, errorOutputCsvCases) run it: how it is set up, which
 * values it sends, what the sandbox answers for them, and a value it refuses before sending.
 * (Phone reads its first column only: its own tests, phoneCsv.test.ts, cover it.)
 */
export interface FileNode {
	/** As the tests name it. */
	label: string;
	type: string;
	/** The sandbox service (its request log and its key). */
	service: string;
	/** The node's parameters beside the file's (VAT: the Validate operation), with the column parameter. */
	parameters: IDataObject;
	/** The column parameter's name and the header the test files use for it. */
	columnParameter: string;
	header: string;
	answerColumns: readonly string[];
	/** The `index`-th of a list of distinct values the node sends as they are. */
	value(index: number): string;
	/** The record the sandbox answers for a value. */
	record(value: string): IDataObject;
	/** The value a request carried. */
	sent(request: LoggedRequest): string;
	/** A value the node refuses before any request, how the error names its field, and the start of the rule it states. */
	refused: string;
	valueLabel: string;
	rule: string;
	/** How the description of a refused row names the value, inside its sentence. */
	valueInSentence: string;
}

/** The start of a node's error for its refused value in row `row`, column 2 (a row's first line is named when it differs). */
export const refusal = (node: FileNode, row: number) =>
	new RegExp(
		`^Invalid ${node.valueLabel} \\(row ${row}( \\(line \\d+\\))?, column 2\\): ${node.rule}`,
	);

const query = (name: string) => (request: LoggedRequest) => String(request.query[name]);

export const EMAIL_FILE: FileNode = {
	label: 'Email',
	type: 'abstractEmail',
	service: 'email',
	parameters: {},
	columnParameter: 'emailColumn',
	header: 'email',
	answerColumns: EMAIL_ANSWER_COLUMNS,
	value: (index) => `lead${index + 1}@example.com`,
	record: emailRecord,
	sent: (request) => String(request.fields.email ?? request.query.email),
	refused: '   ',
	valueLabel: 'Email',
	valueInSentence: 'email',
	rule: 'is required',
};

/** Each node that takes a file with a chosen column; the first is Email, the one all the others follow. */
export const FILE_NODES: FileNode[] = [
	EMAIL_FILE,
	{
		label: 'IP Geolocation',
		type: 'abstractIpGeolocation',
		service: 'geo',
		parameters: {},
		columnParameter: 'ipAddressColumn',
		header: 'ip_address',
		answerColumns: IP_GEOLOCATION_ANSWER_COLUMNS,
		// Public addresses, IPv4 and IPv6 in turn (the sandbox has no data for reserved ranges).
		value: (index) =>
			index % 2 === 0
				? `8.${index % 250}.${Math.floor(index / 250) % 250}.${1 + (index % 7)}`
				: `2a00:1450:4001::${(index + 1).toString(16)}`,
		record: geoRecord,
		sent: query('ip_address'),
		refused: '300.1.2.3',
		valueLabel: 'IP Address',
		valueInSentence: 'IP address',
		rule: 'must be an IPv4 address',
	},
	{
		label: 'Company Enrichment',
		type: 'abstractCompany',
		service: 'company',
		parameters: {},
		columnParameter: 'domainColumn',
		header: 'domain',
		answerColumns: COMPANY_ANSWER_COLUMNS,
		value: (index) => `acme${index + 1}.io`,
		record: companyRecord,
		sent: query('domain'),
		refused: 'acme io',
		valueLabel: 'Domain',
		valueInSentence: 'domain',
		rule: 'must be a domain',
	},
	{
		label: 'IBAN Validation',
		type: 'abstractIban',
		service: 'iban',
		parameters: {},
		columnParameter: 'ibanColumn',
		header: 'iban',
		answerColumns: IBAN_ANSWER_COLUMNS,
		// Spaced, as people write them; valid or not is the service's answer, not a refusal.
		value: (index) => `DE89 3704 0044 0532 ${String(index).padStart(4, '0')} 00`,
		record: (value) => ({ iban: value, is_valid: isValidIban(value) }),
		sent: query('iban'),
		refused: ' ',
		valueLabel: 'IBAN',
		valueInSentence: 'IBAN',
		rule: 'is required',
	},
	{
		label: 'VAT Validate',
		type: 'abstractVat',
		service: 'vat',
		parameters: { operation: 'validate' },
		columnParameter: 'vatNumberColumn',
		header: 'vat_number',
		answerColumns: VAT_VALIDATION_ANSWER_COLUMNS,
		value: (index) => `SE${556656688001 + index}`,
		record: vatValidation,
		sent: query('vat_number'),
		refused: '',
		valueLabel: 'VAT Number',
		valueInSentence: 'VAT number',
		rule: 'is required',
	},
];

/** The nodes that gained a file input beside Email, each against Email's own cases. */
export const NEW_FILE_NODES = FILE_NODES.slice(1);

/** A node over a CSV file in binary field `data`, the values in the column named as the test files name it. */
export const runCsv = (
	node: FileNode,
	{ sandbox, items, parameters = {}, options = {}, continueOnFail, onError, credential }: CsvRun,
) =>
	runNode({
		type: node.type,
		parameters: {
			...node.parameters,
			input: 'csvFile',
			binaryPropertyName: 'data',
			[node.columnParameter]: node.header,
			...parameters,
			options,
		},
		credential: sandboxCredential(sandbox, node.service, credential),
		items,
		continueOnFail,
		onError,
	});

export const runEmailCsv = (run: CsvRun) => runCsv(EMAIL_FILE, run);

export const runPhoneCsv = ({
	sandbox,
	items,
	parameters = {},
	options = {},
	continueOnFail,
	onError,
	credential,
}: CsvRun) =>
	runNode({
		type: 'abstractPhone',
		parameters: { input: 'csvFile', binaryPropertyName: 'data', ...parameters, options },
		credential: sandboxCredential(sandbox, 'phone', credential),
		items,
		continueOnFail,
		onError,
	});

/** The values a node's requests carried, in the order sent. */
export const sentBy = (node: FileNode, sandbox: Sandbox) =>
	sandbox.requests(node.service).map(node.sent);

/** A CSV of `count` data rows under a header `name,<the node's column>`. */
export function rowsCsv(node: FileNode, count: number, lineEnd = '\n', first = 0): string {
	const lines = [`name,${node.header}`];
	for (let index = first; index < first + count; index++)
		lines.push(`Lead ${index + 1},${node.value(index)}`);
	return lines.join(lineEnd) + lineEnd;
}

/** A CSV of `count` data rows under a header `name,email`. */
export const leadsCsv = (count: number, lineEnd = '\n') => rowsCsv(EMAIL_FILE, count, lineEnd);
