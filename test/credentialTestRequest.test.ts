import type { IDataObject, INodeType } from 'n8n-workflow';

import { SERVICE_FORMS } from '../credentials/shared/requestForms';
import { describeNodeType } from './harness/baseNodes';
import { NodeTypes, packageCredentialTypes } from './harness/nodeTypes';
import { runWorkflow, workflowNode, type StoredCredential } from './harness/run';
import { CREDENTIAL_TYPES } from './harness/sandboxCredentials';
import { startSandbox, type Sandbox } from './sandbox/server';

/**
 * Each credential's test request (n8n's Test button, and Save) as n8n runs it: a declarative node
 * whose one property routes that request, run by n8n-core's RoutingNode, which copies the
 * request's options key by key to httpRequestWithAuthentication. It must name its form there: a
 * test request that lost its name would be taken for one built by hand in HTTP Request, which
 * gets a form too, and nothing else would show it.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

/** The node n8n makes of a credential type's test request, by its type name. */
function testRequestNode(credentialType: string): string {
	const name = `credentialTest.${credentialType}`;
	const { request } = packageCredentialTypes().get(credentialType)!.test!;
	const node: INodeType = {
		description: describeNodeType(name, `Test of ${credentialType}`, {
			credentials: [{ name: credentialType, required: true }],
			properties: [
				{
					displayName: 'Test',
					name: 'test',
					type: 'string',
					default: '',
					routing: { request: request as IDataObject },
				},
			],
		}),
	};
	NodeTypes.register(name, node);
	return name;
}

describe.each(Object.entries(CREDENTIAL_TYPES))('%s', (service, credentialType) => {
	it('its test request names a form its service takes, and passes with its key', async () => {
		const type = testRequestNode(credentialType);
		const run = await runWorkflow(
			{
				nodes: [
					workflowNode(
						'Node',
						type,
						0,
						{},
						{
							credentials: { [credentialType]: { id: 'cred', name: 'Sandbox' } },
						},
					),
				],
				connections: {},
			},
			{
				credentials: [
					{
						id: 'cred',
						name: 'Sandbox',
						type: credentialType,
						data: {
							apiKey: sandbox.keys[service],
							baseUrl: sandbox.baseUrls[service],
						} as StoredCredential['data'],
					},
				],
			},
		);
		expect(run.error).toBeUndefined();
		expect(run.authenticated).toHaveLength(1);
		expect(SERVICE_FORMS[credentialType]).toContain(run.authenticated[0].requestForm);
		expect(sandbox.requests(service)).toHaveLength(1);
	});
});
