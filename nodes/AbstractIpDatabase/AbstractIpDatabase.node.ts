import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { serviceCredential } from '../../credentials/shared/liveBaseUrls';
import { requestIn } from '../../credentials/shared/requestForms';
import { outputField, outputFieldParameter } from '../shared/binary/files';
import { runService } from '../shared/engine/engine';
import { fieldLabel } from '../shared/parameters/fieldLabel';
import { runSettingsFromOptions, sendRepeatsOnceOption } from '../shared/parameters/options';
import { invalidInput, redact } from '../shared/engine/errors';
import { toolDescriptionProperties } from '../shared/parameters/toolDescription';
import type { ServiceDefinition } from '../shared/engine/types';
import { quoted } from '../shared/values/quoted';
import {
	ArchiveError,
	requestLink,
	storeArchive,
	storeDatabaseFile,
	type StoredFile,
} from './download';

/**
 * IP database download (GET /v1/database/download/ with database, format and response=json, the
 * key in the query): the licensed database as its archive, as the database file taken out of it,
 * or as the link alone. Every archive is read through and its database file checked against its
 * .sha256 before the item is returned.
 */

const DATABASES = ['ip-geolocation', 'ip-asn', 'ip-security'];
const FORMATS = ['mmdb', 'csv'];
const OUTPUTS = ['archive', 'databaseFile', 'link'];

interface DatabaseDownload {
	database: string;
	format: string;
	output: string;
	property: string;
	skipIfUnchanged: boolean;
}

const databaseParameter: INodeProperties = {
	displayName: 'Database',
	name: 'database',
	type: 'options',
	default: 'ip-geolocation',
	options: [
		{
			name: 'IP ASN',
			value: 'ip-asn',
			description:
				'Which autonomous system announces a network and who operates it. Rebuilt weekly.',
		},
		{
			name: 'IP Geolocation',
			value: 'ip-geolocation',
			description:
				'Where a network is: country, region, city, coordinates, time zone. Rebuilt weekly.',
		},
		{
			name: 'IP Security',
			value: 'ip-security',
			description:
				'Whether a network is a VPN, proxy, Tor node, hosting provider, relay, mobile or abuse source. Rebuilt daily.',
		},
	],
	description: 'The database to download; the organization must be entitled to it',
};

const formatParameter: INodeProperties = {
	displayName: 'Format',
	name: 'format',
	type: 'options',
	default: 'mmdb',
	options: [
		{
			name: 'CSV',
			value: 'csv',
			description: 'One header row, one row per network (quoted fields hold commas)',
		},
		{
			name: 'MMDB',
			value: 'mmdb',
			description: 'MaxMind DB file for indexed lookups by IP address',
		},
	],
};

const outputParameter: INodeProperties = {
	displayName: 'Output',
	name: 'output',
	type: 'options',
	default: 'archive',
	options: [
		{
			name: 'Archive',
			value: 'archive',
			description:
				'The .tar.gz as the service ships it (database file, its .sha256, README.md), checked before output',
		},
		{
			name: 'Database File',
			value: 'databaseFile',
			description:
				"The .mmdb or .csv file taken out of the archive, its SHA-256 checked against the archive's .sha256 file",
		},
		{
			name: 'Link',
			value: 'link',
			description:
				'No download: a secret link (URL and expiry). Anyone holding it can download the database: keep it out of logs.',
		},
	],
};

/** The service's archive names: svc-ip-asn.tar.gz (MMDB), svc-ip-asn-csv.tar.gz (CSV). */
const archiveFileName = (database: string, format: string) =>
	format === 'mmdb' ? `svc-${database}.tar.gz` : `svc-${database}-csv.tar.gz`;

/** MMDB's registered media type; CSV's. */
const DATABASE_MIME_TYPES: Record<string, string> = {
	mmdb: 'application/vnd.maxmind.maxmind-db',
	csv: 'text/csv',
};

function oneOf(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	value: unknown,
	allowed: string[],
): string {
	const text = String(value ?? '').trim();
	if (!allowed.includes(text)) {
		throw invalidInput(
			ctx,
			itemIndex,
			field,
			`${quoted(text)} is not one of ${allowed.join(', ')}`,
		);
	}
	return text;
}

/**
 * A failed download as an n8n error: a broken archive says what broke, and that nothing was
 * output. The link (and its signature) is a credential: it never goes into a message.
 */
function downloadFailure(
	ctx: IExecuteFunctions,
	itemIndex: number,
	error: unknown,
	link: string,
	archiveName: string,
) {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	const secrets = [link, link.split('?')[1] ?? ''];
	if (!(error instanceof ArchiveError)) {
		return new NodeOperationError(
			ctx.getNode(),
			redact((error as Error)?.message ?? String(error), secrets),
			{ itemIndex },
		);
	}
	return new NodeOperationError(
		ctx.getNode(),
		`The downloaded ${archiveName} is broken: ${redact(error.message, secrets)}`,
		{
			itemIndex,
			description:
				'Nothing was output, so no broken file reaches the next step. Run the node again to download a fresh copy; the link is asked for anew each time.',
		},
	);
}

const ipDatabaseDownload: ServiceDefinition<DatabaseDownload> = {
	...serviceCredential('abstractIpIntelligenceApi'),
	serviceName: 'IP Database Download',
	// An archive is too large to keep in memory for a next try: it is fetched again.
	keepAnswersForRetry: false,
	statusMessages: {
		400: "The API key is missing (400): the credential has no API key. Enter the organization's IP intelligence key in the Abstract IP Database API credential",
		403: 'The IP database download was refused (403). The service gives this one answer for four causes: the key is unknown, disabled or revoked; the organization has no active entitlement to this database; the database is outside the catalogue (ip-geolocation, ip-asn, ip-security); or the format is outside it (mmdb, csv). Check the key in the credential and which databases the organization licenses',
		503: 'IP database downloads are temporarily unavailable (503). Run the node again later',
	},
	prepare(itemIndex) {
		const output = oneOf(
			this,
			itemIndex,
			fieldLabel(outputParameter),
			this.getNodeParameter(outputParameter.name, itemIndex),
			OUTPUTS,
		);
		// n8n offers every node to AI agents as `<type>Tool`; a model must never be handed the link.
		if (output === 'link' && this.getNode().type.endsWith('Tool')) {
			throw invalidInput(
				this,
				itemIndex,
				fieldLabel(outputParameter),
				'Link is not available when an AI agent runs this node: the link is a secret',
			);
		}
		return {
			database: oneOf(
				this,
				itemIndex,
				fieldLabel(databaseParameter),
				this.getNodeParameter(databaseParameter.name, itemIndex),
				DATABASES,
			),
			format: oneOf(
				this,
				itemIndex,
				fieldLabel(formatParameter),
				this.getNodeParameter(formatParameter.name, itemIndex),
				FORMATS,
			),
			output,
			property: output === 'link' ? '' : outputField(this, itemIndex),
			skipIfUnchanged:
				output !== 'link' &&
				(this.getNodeParameter('options.skipIfUnchanged', itemIndex, false) as boolean),
		};
	},
	async run(itemIndex, request, client) {
		const { database, format, output, property } = request;
		const link = await requestLink(
			this,
			itemIndex,
			client,
			requestIn('getKeyInQuery', '/v1/database/download/', { database, format, response: 'json' }),
		);
		if (output === 'link') {
			const json: IDataObject = { database, format, url: link.url };
			if (link.expiresIn !== undefined) json.expires_in = link.expiresIn;
			return [{ json }];
		}

		const archiveName = archiveFileName(database, format);
		let stored: StoredFile;
		try {
			const download = await client.download(link.url, { as: 'stream', secret: true });
			stored =
				output === 'archive'
					? await storeArchive(this, download, {
							format,
							fileName: archiveName,
							mimeType: 'application/gzip',
						})
					: await storeDatabaseFile(this, download, {
							format,
							mimeType: DATABASE_MIME_TYPES[format],
						});
		} catch (error) {
			throw downloadFailure(this, itemIndex, error, link.url, archiveName);
		}

		const { facts } = stored;
		const json: IDataObject = {
			database,
			format,
			fileName: stored.binary.fileName,
			size: stored.size,
			sha256: facts.sha256,
			...(output === 'archive'
				? { databaseFileName: facts.databaseFileName }
				: { archiveFileName: archiveName }),
		};
		if (request.skipIfUnchanged) {
			// Builds are reproducible (identical inputs give byte-identical files): the same checksum is the same build, already stored.
			const memory = this.getWorkflowStaticData('node');
			const checksums = (memory.lastChecksums ??= {}) as IDataObject;
			const id = `${database}/${format}`;
			if (checksums[id] === facts.sha256)
				return [{ json: { database, format, sha256: facts.sha256, changed: false } }];
			checksums[id] = facts.sha256;
			json.changed = true;
		}
		return [{ json, binary: { [property]: stored.binary } }];
	},
};

export class AbstractIpDatabase implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Abstract IP Database Download',
		name: 'abstractIpDatabase',
		icon: { light: 'file:abstractIpDatabase.svg', dark: 'file:abstractIpDatabase.dark.svg' },
		group: ['input'],
		version: 1,
		subtitle: '={{$parameter["database"] + " (" + $parameter["format"] + ")"}}',
		description:
			'Download the licensed IP geolocation, ASN or security database, checked against its checksum',
		documentationUrl: 'https://docs.abstractapi.com/api/ip-intelligence',
		defaults: { name: 'IP Database Download' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'abstractIpIntelligenceApi', required: true }],
		properties: [
			databaseParameter,
			...toolDescriptionProperties('database', {
				'ip-asn':
					'Download the licensed IP ASN database (which autonomous system announces each network and who operates it), checked against its checksum',
				'ip-geolocation':
					'Download the licensed IP geolocation database (where each network is: country, region, city, time zone), checked against its checksum',
				'ip-security':
					'Download the licensed IP security database (which networks are VPNs, proxies, Tor nodes, hosting or abuse sources), checked against its checksum',
			}),
			formatParameter,
			outputParameter,
			outputFieldParameter('archive or database file', {
				displayOptions: { hide: { output: ['link'] } },
			}),
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				displayOptions: { hide: { output: ['link'] } },
				options: [
					{
						...sendRepeatsOnceOption,
						// A download spends no credit: the databases come with the organization's licence.
						description:
							'Whether items of one run that ask for the same database and format download it once and each get the file. Turn off to download it for every item.',
					},
					{
						displayName: 'Skip If Unchanged',
						name: 'skipIfUnchanged',
						type: 'boolean',
						default: false,
						description:
							"Whether to output only {changed: false} and no file when the build's checksum is the one of the last download (remembered per database and format in the workflow's static data, which n8n keeps for active workflows)",
					},
				],
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await runService(this, ipDatabaseDownload, runSettingsFromOptions);
	}
}
