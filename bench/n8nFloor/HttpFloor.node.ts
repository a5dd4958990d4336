import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

/**
 * The floor of the real-n8n bench's bulk figures: a node that only sends requests through n8n's
 * own helper, `httpRequestWithAuthentication`, as the package's Email node sends them (the same
 * credential handed over decrypted, the same options, 32 at a time, unpaced), keeps nothing of
 * the answers, and outputs one item. What n8n's peak memory grows by over this node's run is what
 * any node pays for that many requests in that n8n: no CSV, no items, no result file.
 *
 * Loaded by the bench only, from N8N_CUSTOM_EXTENSIONS (as `CUSTOM.httpFloor`); never packed. It
 * imports nothing at run time: n8n loads it from a folder without node_modules.
 */
export class HttpFloor implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'HTTP Floor',
		name: 'httpFloor',
		group: ['transform'],
		version: 1,
		description: 'Sends N Email Reputation requests through n8n and keeps nothing (bench only)',
		defaults: { name: 'HTTP Floor' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'abstractEmailApi', required: true }],
		properties: [{ displayName: 'Requests', name: 'requests', type: 'number', default: 10 }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const requests = this.getNodeParameter('requests', 0) as number;
		const credentials = await this.getCredentials('abstractEmailApi');
		const reference = this.getNode().credentials?.abstractEmailApi;
		const authentication = {
			credentialsDecrypted: {
				id: reference?.id ?? '',
				name: reference?.name ?? '',
				type: 'abstractEmailApi',
				data: credentials,
			},
		};
		const url = `${String(credentials.baseUrl).replace(/\/+$/, '')}/v1/`;
		let next = 0;
		let answered = 0;
		const lane = async () => {
			while (next < requests) {
				const index = next++;
				const response = (await this.helpers.httpRequestWithAuthentication.call(
					this,
					'abstractEmailApi',
					// The Email node's default form (Send As: Bearer Header and JSON Body), as its engine sends it.
					{
						method: 'POST',
						url,
						body: { email: `lead${index}@example.com` },
						headers: { 'Content-Type': 'application/json' },
						returnFullResponse: true,
						ignoreHttpStatusErrors: true,
						timeout: 30_000,
						json: true,
					},
					authentication,
				)) as { statusCode: number };
				if (response.statusCode === 200) answered++;
			}
		};
		await Promise.all(Array.from({ length: 32 }, lane));
		// A floor of refused requests would measure something else: the run fails instead.
		if (answered !== requests)
			throw new Error(
				`HTTP Floor: ${requests - answered} of ${requests} requests were not answered with 200`,
			);
		return [[{ json: { requests, answered } }]];
	}
}
