import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeType,
} from 'n8n-workflow';

import { describeNodeType } from './baseNodes';
import { NodeTypes } from './nodeTypes';
import { runWorkflow, workflowNode, type StoredCredential } from './run';

/*
 * n8n's HTTP Request node as it sends a request with a credential (Authentication: Predefined
 * Credential Type): through n8n-core's requestWithAuthentication, in the older request options it
 * builds (`uri`; a `form` or `formData` object; `followRedirect`). n8n-nodes-base does not install
 * beside this n8n-core, so the harness sends the options that node makes of what a person set;
 * `npm run test:e2e` runs the node itself in a real n8n.
 */

/** What a person sets in the HTTP Request node, as the request options it makes of them. */
export interface HandBuilt {
	credentialType: string;
	method: 'GET' | 'POST';
	uri: string;
	qs?: IDataObject;
	/** JSON Body's object (HTTP Request: Body Content Type JSON), or a Raw body's text. */
	body?: IDataObject | string;
	/** Form URLencoded's fields. */
	form?: IDataObject;
	/**
	 * Form-Data's parts: a file as its bytes and name, a text as itself (the node below version
	 * 4.2); from 4.2 on a `form-data` instance holding them.
	 */
	formData?: Record<string, string | { value: Buffer; options: { filename: string } }> | object;
	/** The node's Proxy option. */
	proxy?: string;
	/**
	 * The node's Response Format Autodetect (its default) or File: the answer comes as a stream
	 * (`encoding: null`, `useStream`), and a file answer is made binary data as the node makes it.
	 */
	encoding?: null;
	useStream?: boolean;
	json?: boolean;
	/** The node's Pagination option, as n8n-core's requestWithAuthenticationPaginated takes it. */
	pagination?: IDataObject;
	/** The node's Redirects option (on by default), as it sets it. */
	followRedirect?: boolean;
	followAllRedirects?: boolean;
}

/**
 * The stand-in takes HTTP Request's type name: n8n-core hands that node (and only it) any
 * credential without its type declaring one, as it does in n8n.
 */
const HTTP_REQUEST = 'n8n-nodes-base.httpRequest';

/** The requests the test asks for, by the token its node is given (a file's bytes are no parameter value). */
const requests = new Map<number, HandBuilt>();

/** Sends the request of its token with the credential, through n8n-core, as HTTP Request does. */
class HandBuiltRequest implements INodeType {
	description = describeNodeType(HTTP_REQUEST, 'Hand-built request', {
		properties: [{ displayName: 'Token', name: 'token', type: 'number', default: 0 }],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const request = requests.get(this.getNodeParameter('token', 0) as number)!;
		const { credentialType, pagination, ...given } = request;
		const options = {
			headers: {},
			gzip: true,
			rejectUnauthorized: true,
			followRedirect: true,
			resolveWithFullResponse: true,
			...(given.body !== undefined && typeof given.body === 'object' ? { json: true } : {}),
			...given,
		};
		if (pagination) {
			const pages = (await this.helpers.requestWithAuthenticationPaginated.call(
				this,
				{ headers: {}, resolveWithFullResponse: true, ...given } as never,
				0,
				pagination as never,
				credentialType,
			)) as unknown[];
			return [[{ json: { pages: pages.length }, pairedItem: { item: 0 } }]];
		}
		const response = (await this.helpers.requestWithAuthentication.call(
			this,
			credentialType,
			options as unknown as IHttpRequestOptions,
		)) as { statusCode: number; body: unknown; headers: Record<string, string> };
		const json = { statusCode: response.statusCode };
		const contentType = String(response.headers['content-type'] ?? '');
		if (given.encoding !== null || !/^image\//.test(contentType))
			return [[{ json, pairedItem: { item: 0 } }]];
		// A file answer, as HTTP Request makes it binary data: n8n names it from the stream's request.
		const file = await this.helpers.prepareBinaryData(
			response.body as Buffer,
			undefined,
			contentType.split(';')[0],
		);
		return [[{ json, binary: { data: file }, pairedItem: { item: 0 } }]];
	}
}
NodeTypes.register(HTTP_REQUEST, new HandBuiltRequest());

/** Runs one hand-built request through the engine with a credential of its type holding `credential`. */
export async function sendHandBuilt(request: HandBuilt, credential: IDataObject) {
	const token = requests.size + 1;
	requests.set(token, request);
	const workflow = {
		nodes: [
			workflowNode(
				'Node',
				HTTP_REQUEST,
				0,
				{ token },
				{
					credentials: { [request.credentialType]: { id: 'cred', name: 'Sandbox' } },
				},
			),
		],
		connections: {},
	};
	return await runWorkflow(workflow, {
		credentials: [
			{
				id: 'cred',
				name: 'Sandbox',
				type: request.credentialType,
				data: credential as StoredCredential['data'],
			},
		],
	});
}
