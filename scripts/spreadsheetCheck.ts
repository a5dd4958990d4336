import { spawnSync } from 'child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import os from 'os';
import path from 'path';

import { Container } from '@n8n/di';
import { parse as csvParse } from 'csv-parse/sync';
import { BinaryDataService } from 'n8n-core';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { parseCsv } from '../nodes/shared/csv/csv';
import { databaseFileName, databaseFileOf } from '../test/sandbox/ipDatabases/archives';
import { startSandbox, type Sandbox } from '../test/sandbox/server';
import { csvItem, FILE_NODES, runCsv, runPhoneCsv } from '../test/nodes/csvHelpers';
import { lookUp } from '../test/nodes/ipLookupHelpers';
import {
	csvText,
	escapeLeadRecords,
	excelEuropeanList,
	nastyLeadRecords,
	type NastyColumn,
} from '../test/nodes/nastyLeads';

/**
 * `npm run test:spreadsheet`: result files opened in a real spreadsheet. Every node that writes a
 * result file (Phone, Email, IP Geolocation, Company Enrichment, IBAN, VAT Validate, IP Database
 * Lookup) runs through n8n-core (the test harness, the sandbox on 127.0.0.1) over a 40-lead file
 * whose names and notes start like formulas, in each form (byte order mark on and off; comma,
 * semicolon, tab), and over an Excel-exported European list (byte order mark, semicolons).
 * LibreOffice Calc (headless) imports each result file as CSV (UTF-8, its delimiter, formulas
 * evaluated, as a user opening it gets) and saves it as xlsx; python3-openpyxl then reads every
 * cell: none may be a formula, and every text cell must be the text the file holds (Python's csv
 * module reads the file, and must agree with csv-parse and the package's reader). A control run
 * (Defuse Formulas off) must show formula cells, so the check is known to see them.
 *
 * The escapes: every node's result file of cells the rule meets beyond a first character (a
 * leading NUL or line feed, a formula after a comma, semicolon, tab or `|` inside a cell, signed
 * forms that are not numbers), written with each delimiter, is opened with each of comma,
 * semicolon and tab as LibreOffice's separator (a file is not always opened with its own: Excel in
 * German, French or Dutch splits a `.csv` on `;`): no formula cell in any. The same cells written
 * by the previous rules (the first character only, quotes only around the file's own delimiter)
 * must show formula cells, so this check is known to see them too.
 *
 * Installs nothing: without soffice or openpyxl it says what to install and exits non-zero.
 */

const OUT = path.join(os.tmpdir(), 'n8n-nodes-abstractapi-spreadsheet-check');
const SEPARATOR: Record<string, number> = { ',': 44, ';': 59, '\t': 9 };

interface ResultNode extends NastyColumn {
	label: string;
	valueFirst: boolean;
	run(
		sandbox: Sandbox,
		file: Buffer,
		options: IDataObject,
	): Promise<{ items: INodeExecutionData[]; error?: Error }>;
}

const RESULT = { output: 'resultFile', resultBinaryPropertyName: 'result' };

const NODES: ResultNode[] = [
	{
		label: 'Phone',
		header: 'phone',
		value: (index) => `+1415200${7000 + index}`,
		valueFirst: true,
		run: (sandbox, file, options) =>
			runPhoneCsv({ sandbox, items: [csvItem(file)], parameters: RESULT, options }),
	},
	...FILE_NODES.map(
		(node): ResultNode => ({
			label: node.label,
			header: node.header,
			value: node.value,
			valueFirst: false,
			run: (sandbox, file, options) =>
				runCsv(node, { sandbox, items: [csvItem(file)], parameters: RESULT, options }),
		}),
	),
	{
		label: 'IP Database Lookup',
		header: 'ip',
		value: FILE_NODES[1].value,
		valueFirst: false,
		run: async (_sandbox, file, options) =>
			await lookUp({
				file: {
					bytes: databaseFileOf('ip-geolocation', 'csv', 1),
					fileName: databaseFileName('ip-geolocation', 'csv'),
				},
				ips: [],
				csvFile: { bytes: file },
				parameters: { ...RESULT, addressColumn: 'ip', options },
			}),
	},
];

/** One result file to open: where it is, its delimiter, and whether it is the control (defusing off). */
interface Written {
	file: string;
	delimiter: string;
	control: boolean;
}

/** The python that reads a result file with the csv module and its xlsx with openpyxl, cell by cell. */
const READER = `
import csv, json, sys, openpyxl
out = []
for csv_path, xlsx_path, delimiter in json.loads(sys.stdin.read()):
    with open(csv_path, newline='', encoding='utf-8-sig') as f:
        rows = list(csv.reader(f, delimiter=delimiter))
    sheet = openpyxl.load_workbook(xlsx_path).active
    cells = []
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            cell = sheet.cell(row=r + 1, column=c + 1)
            value = cell.value
            cells.append([text, cell.data_type, value if isinstance(value, str) or value is None else repr(value)])
    out.append({'csv': csv_path, 'rows': rows, 'cells': cells})
print(json.dumps(out))
`;

/** A python 3 that has openpyxl (the Debian package installs it for /usr/bin/python3). */
function pythonWithOpenpyxl(): string | undefined {
	for (const candidate of ['python3', '/usr/bin/python3']) {
		if (spawnSync(candidate, ['-c', 'import openpyxl'], { stdio: 'ignore' }).status === 0)
			return candidate;
	}
	return undefined;
}

/** The python that lists the formula cells of each xlsx. */
const FORMULAS = `
import json, sys, openpyxl
out = []
for xlsx_path in json.loads(sys.stdin.read()):
    sheet = openpyxl.load_workbook(xlsx_path).active
    out.append([str(cell.value) for row in sheet.iter_rows() for cell in row if cell.data_type == 'f'])
print(json.dumps(out))
`;

/**
 * A cell as the previous rules wrote it: an apostrophe only before a first character of `=`, `+`,
 * `-`, `@`, tab or CR (signed numbers and phone numbers of digits and `. , ( ) / -` left alone),
 * quotes only around the file's own delimiter, a quote or a line break. The control of the escapes.
 */
function previousRulesCell(value: string, delimiter: string): string {
	const defused = /^'*[=+\-@\t\r]/.test(value) && !/^'*[+-][\d .,()/-]*\d[\d .,()/-]*$/.test(value);
	const text = defused ? `'${value}` : value;
	const quoted = value.includes(delimiter) || /["\r\n]|^ | $/.test(value);
	return quoted ? `"${text.replace(/"/g, '""')}"` : text;
}

/** LibreOffice converts every file given to it into one folder: one folder per separator it opens them with. */
function convert(files: string[], separator: string, outdir: string): void {
	if (files.length === 0) return;
	mkdirSync(outdir, { recursive: true });
	const converted = spawnSync(
		'soffice',
		// A profile of its own: a LibreOffice already running (another check, a user's) would take the files instead.
		[
			`-env:UserInstallation=file://${path.join(OUT, 'profile')}`,
			'--headless',
			'--convert-to',
			'xlsx',
			`--infilter=CSV:${SEPARATOR[separator]},34,76,1`,
			'--outdir',
			outdir,
			...files,
		],
		{ encoding: 'utf8', timeout: 300_000 },
	);
	if (converted.status !== 0) throw new Error(`soffice failed: ${converted.stderr}`);
}

/** A cell LibreOffice may read as a number or a date: no letter, nothing but digits and number marks (true and false are booleans). */
const VALUE_LIKE = /^[+-]?[\d .,()/:%-]*\d[\d .,()/:%-]*$/;

async function main(): Promise<number> {
	const soffice = spawnSync('soffice', ['--version'], { encoding: 'utf8' });
	const python = pythonWithOpenpyxl();
	if (soffice.status !== 0 || !python) {
		console.error(
			`The spreadsheet check needs LibreOffice Calc (soffice${soffice.status === 0 ? ': found' : ': not found'}) and python3-openpyxl (${python ? 'found' : 'not found'}).\n` +
				'Install them, then run again:  sudo apt-get install libreoffice-calc-nogui python3-openpyxl',
		);
		return 1;
	}
	console.log(`LibreOffice: ${soffice.stdout.trim()}; python: ${python}`);
	rmSync(OUT, { recursive: true, force: true });
	mkdirSync(OUT, { recursive: true });

	const written: Written[] = [];
	/** The escapes: the node's result files, and the previous rules' files (the control). */
	const escapes: Array<{ file: string; control: boolean }> = [];
	const sandbox = await startSandbox();
	try {
		for (const node of NODES) {
			const slug = node.label.toLowerCase().replace(/[^a-z]+/g, '-');
			const nasty = csvText(nastyLeadRecords(node, 40, node.valueFirst));
			const runs: Array<{
				name: string;
				input: Buffer;
				options: IDataObject;
				delimiter: string;
				control?: boolean;
			}> = [];
			for (const [delimiterName, delimiter] of [
				['comma', ','],
				['semicolon', ';'],
				['tab', '\t'],
			] as const) {
				for (const byteOrderMark of ['yes', 'no']) {
					runs.push({
						name: `${slug}-${delimiterName}-bom-${byteOrderMark}`,
						input: nasty,
						options: { resultDelimiter: delimiterName, byteOrderMark },
						delimiter,
					});
				}
			}
			runs.push({
				name: `${slug}-excel-list`,
				input: excelEuropeanList(node, 40, node.valueFirst),
				options: {},
				delimiter: ';',
			});
			runs.push({
				name: `${slug}-control-defusing-off`,
				input: nasty,
				options: { defuseFormulas: false },
				delimiter: ',',
				control: true,
			});
			const escapeRecords = escapeLeadRecords(node, 18, node.valueFirst);
			for (const [delimiterName, delimiter] of [
				['comma', ','],
				['semicolon', ';'],
				['tab', '\t'],
			] as const) {
				sandbox.reset();
				const { items, error } = await node.run(sandbox, csvText(escapeRecords), {
					resultDelimiter: delimiterName,
				});
				if (error) throw new Error(`${node.label} escapes ${delimiterName}: ${error.message}`);
				const file = path.join(OUT, `${slug}-escapes-${delimiterName}.csv`);
				writeFileSync(
					file,
					await Container.get(BinaryDataService).getAsBuffer(items[0].binary!.result),
				);
				escapes.push({ file, control: false });
				if (node === NODES[0]) {
					const previous = path.join(OUT, `previous-rules-escapes-${delimiterName}.csv`);
					writeFileSync(
						previous,
						escapeRecords
							.map((record) =>
								record.map((cell) => previousRulesCell(cell, delimiter)).join(delimiter),
							)
							.join('\r\n') + '\r\n',
					);
					escapes.push({ file: previous, control: true });
				}
			}
			for (const run of runs) {
				sandbox.reset();
				const { items, error } = await node.run(sandbox, run.input, run.options);
				if (error) throw new Error(`${node.label} ${run.name}: ${error.message}`);
				const bytes = await Container.get(BinaryDataService).getAsBuffer(items[0].binary!.result);
				const file = path.join(OUT, `${run.name}.csv`);
				writeFileSync(file, bytes);
				written.push({ file, delimiter: run.delimiter, control: run.control === true });
			}
		}
	} finally {
		await sandbox.close();
	}

	// One LibreOffice run per delimiter: it converts every file of the group.
	for (const delimiter of [',', ';', '\t'])
		convert(
			written.filter((entry) => entry.delimiter === delimiter).map((entry) => entry.file),
			delimiter,
			OUT,
		);
	// The escapes, each opened with every separator.
	const separatorNames: Record<string, string> = { ',': 'comma', ';': 'semicolon', '\t': 'tab' };
	for (const separator of [',', ';', '\t'])
		convert(
			escapes.map((entry) => entry.file),
			separator,
			path.join(OUT, `opened-as-${separatorNames[separator]}`),
		);
	const xlsx = new Set(readdirSync(OUT).filter((name) => name.endsWith('.xlsx')));
	const missing = written.filter(
		(entry) => !xlsx.has(path.basename(entry.file).replace(/\.csv$/, '.xlsx')),
	);
	if (missing.length > 0)
		throw new Error(`LibreOffice made no xlsx of ${missing.map((entry) => entry.file).join(', ')}`);

	const read = spawnSync(python, ['-c', READER], {
		input: JSON.stringify(
			written.map((entry) => [entry.file, entry.file.replace(/\.csv$/, '.xlsx'), entry.delimiter]),
		),
		encoding: 'utf8',
		maxBuffer: 256 * 1024 * 1024,
	});
	if (read.status !== 0) throw new Error(`python failed: ${read.stderr}`);
	const sheets = JSON.parse(read.stdout) as Array<{
		csv: string;
		rows: string[][];
		cells: Array<[string, string, string | null]>;
	}>;

	let checked = 0;
	let cells = 0;
	let formulas = 0;
	let valueCells = 0;
	let texts = 0;
	let controlFormulas = 0;
	const problems: string[] = [];
	for (const [index, sheet] of sheets.entries()) {
		const entry = written[index];
		const name = path.basename(entry.file);
		// Python's csv module, csv-parse (as n8n's Extract From File) and the package's reader read the same cells.
		const bytes = readFileSync(entry.file);
		const byCsvParse = csvParse(bytes, { bom: true, delimiter: entry.delimiter }) as string[][];
		const byOwn = parseCsv(bytes, { delimiter: 'detect' }).map((row) => row.fields);
		if (JSON.stringify(sheet.rows) !== JSON.stringify(byCsvParse))
			problems.push(`${name}: Python's csv module and csv-parse read different cells`);
		if (JSON.stringify(byOwn) !== JSON.stringify(byCsvParse))
			problems.push(`${name}: the package's reader and csv-parse read different cells`);
		if (entry.control) {
			controlFormulas += sheet.cells.filter(([, type]) => type === 'f').length;
			continue;
		}
		checked++;
		for (const [text, type, value] of sheet.cells) {
			cells++;
			if (type === 'f') {
				formulas++;
				problems.push(
					`${name}: ${JSON.stringify(text)} became the formula ${JSON.stringify(value)}`,
				);
			} else if (type === 's' || text === '') {
				// LibreOffice keeps a line break inside a cell as LF.
				const expected = text === '' ? null : text.replace(/\r\n?/g, '\n');
				if (value !== expected)
					problems.push(`${name}: ${JSON.stringify(text)} reads ${JSON.stringify(value)}`);
				else texts++;
			} else if (VALUE_LIKE.test(text) || (type === 'b' && /^(true|false)$/i.test(text))) {
				valueCells++;
			} else {
				problems.push(`${name}: ${JSON.stringify(text)} became a ${type} cell (${String(value)})`);
			}
		}
	}
	console.log(
		`${checked} result files opened in LibreOffice Calc (${NODES.length} nodes; comma, semicolon, tab; byte order mark on and off; an Excel-exported list): ` +
			`${cells} cells, ${formulas} formula cells, ${texts} texts (or empty cells) as written, ${valueCells} read as numbers, dates or booleans (signed numbers, phone numbers without letters, dates, true and false: left as data).`,
	);
	console.log(
		`Control (Defuse Formulas off, ${written.filter((entry) => entry.control).length} files): ${controlFormulas} formula cells, so the check sees them.`,
	);
	if (controlFormulas === 0)
		problems.push('the control files show no formula cell: the check would not see one');

	// The escapes: every file under every separator, no formula cell; the previous rules' files, some.
	const opened = ['comma', 'semicolon', 'tab'].flatMap((separator) =>
		escapes.map((entry) => ({
			...entry,
			separator,
			xlsx: path.join(
				OUT,
				`opened-as-${separator}`,
				path.basename(entry.file).replace(/\.csv$/, '.xlsx'),
			),
		})),
	);
	const listed = spawnSync(python, ['-c', FORMULAS], {
		input: JSON.stringify(opened.map((entry) => entry.xlsx)),
		encoding: 'utf8',
		maxBuffer: 64 * 1024 * 1024,
	});
	if (listed.status !== 0) throw new Error(`python failed: ${listed.stderr}`);
	const formulasOf = JSON.parse(listed.stdout) as string[][];
	for (const separator of ['comma', 'semicolon', 'tab']) {
		const ours = opened.flatMap((entry, index) =>
			entry.separator === separator && !entry.control
				? formulasOf[index].map((formula) => `${path.basename(entry.file)}: ${formula}`)
				: [],
		);
		const previous = opened.flatMap((entry, index) =>
			entry.separator === separator && entry.control ? formulasOf[index] : [],
		);
		const files = opened.filter((entry) => entry.separator === separator && !entry.control).length;
		console.log(
			`Escapes opened with ${separator} as the separator: ${files} result files (${NODES.length} nodes, written with comma, semicolon, tab), ${ours.length} formula cells; ` +
				`the same cells written by the previous rules (3 files): ${previous.length} formula cells (${[...new Set(previous)].slice(0, 4).join(' ; ')}).`,
		);
		for (const formula of ours)
			problems.push(`opened with ${separator}: ${formula} is a formula cell`);
		if (previous.length === 0)
			problems.push(
				`the previous rules' files opened with ${separator} show no formula cell: the check would not see one`,
			);
	}
	for (const problem of problems.slice(0, 40)) console.log(`  ${problem}`);
	console.log(
		problems.length === 0
			? 'OK: no formula cell, every text as written.'
			: `FAILED: ${problems.length} problems.`,
	);
	console.log(`Files: ${OUT}`);
	return problems.length === 0 ? 0 : 1;
}

if (require.main === module) {
	void main().then(
		(code) => process.exit(code),
		(error: Error) => {
			console.error(error);
			process.exit(1);
		},
	);
}
