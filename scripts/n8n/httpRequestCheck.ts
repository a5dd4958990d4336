import type { Sandbox } from '../../test/sandbox/server';
import type { KeySource } from '../../test/sandbox/types';
import { REQUEST_FORMS } from '../../credentials/shared/requestForms';
import { handBuiltCalls, wirePlaceOf, type HandBuiltCall } from '../../test/harness/handBuiltCalls';
import {
	CREDENTIAL_TYPES,
	exampleCredentialId,
	exampleCredentialName,
} from '../../test/harness/sandboxCredentials';
import { importIntoN8n, MANUAL_TRIGGER, type Workflow } from './examples';
import { executeWorkflow } from './runChecks';
import { environmentFor, type Prepared } from './setup';

/**
 * Each credential of the package in n8n's own HTTP Request node (Authentication: Predefined
 * Credential Type), as a person builds a call the nodes do not make: one node per form each
 * service takes (but an upload), with the path and fields of the credential's own test request. Run by `n8n execute`: every node must answer, and the sandbox must log each request once,
 * with the key where the service's form of that method and body puts it; then the calls the
 * credential refuses (REFUSED) must say so and send nothing, and those the service answers with
 * an error (FAILING) must show it, the key nowhere in the run.
 */
/** Every form each service takes but an upload, built from the credential's own test request. */
const CALLS = handBuiltCalls();

/**
 * Calls the credential refuses before anything is sent, each with what it says: the request
 * names a proxy (the sandbox's own address, which would log the key had it reached it), or it is
 * an upload whose Form-Data body the node (4.2 and later) builds as a stream.
 */
interface RefusedCall {
	label: string;
	service: string;
	method: 'GET' | 'POST';
	path: string;
	/** HTTP Request's parameters besides its method, URL and credential. */
	parameters: (sandbox: Sandbox) => Record<string, unknown>;
	says: RegExp;
}

const REFUSED: RefusedCall[] = [
	{
		label: 'its Proxy option set',
		service: 'iban',
		method: 'GET',
		path: '/v1/',
		parameters: (sandbox) => ({
			sendQuery: true,
			specifyQuery: 'keypair',
			queryParameters: { parameters: [{ name: 'iban', value: 'BE71096123456769' }] },
			options: { proxy: new URL(sandbox.baseUrls.iban).origin },
		}),
		says: /not through a proxy the request names/,
	},
	{
		label: 'an upload as Form-Data',
		service: 'images',
		method: 'POST',
		path: '/v1/upload/',
		parameters: () => ({
			sendBody: true,
			contentType: 'multipart-form-data',
			bodyParameters: {
				parameters: [{ parameterType: 'formData', name: 'data', value: '{"lossy":true}' }],
			},
			options: {},
		}),
		says: /builds as a stream it cannot be put in/,
	},
];

/**
 * Calls the service answers with an error (a path it does not have), the key in a Bearer header
 * and in a form field: the node's error output, and its full response with Never Error, must show
 * the answer's status, and nothing of the run n8n prints may hold a key.
 */
const FAILING: Array<RefusedCall & { key: KeySource }> = [
	{
		label: 'answered 404, its error output',
		service: 'email',
		method: 'POST',
		path: '/v1/missing/',
		parameters: () => ({
			sendBody: true,
			contentType: 'json',
			specifyBody: 'keypair',
			bodyParameters: { parameters: [{ name: 'email', value: 'support@abstractapi.com' }] },
			options: {},
		}),
		says: /could not be found/,
		key: 'bearer',
	},
	{
		label: 'answered 404, its full response',
		service: 'phone',
		method: 'POST',
		path: '/v1/missing/',
		parameters: () => ({
			sendBody: true,
			contentType: 'form-urlencoded',
			specifyBody: 'keypair',
			bodyParameters: { parameters: [{ name: 'phone', value: '14152007986' }] },
			options: { response: { response: { fullResponse: true, neverError: true } } },
		}),
		says: /"statusCode":404/,
		key: 'form',
	},
];

/** The calls whose outcome is checked: the refused, then the failing. */
const CHECKED: RefusedCall[] = [...REFUSED, ...FAILING];

const WORKFLOW_ID = 'httpRequestPredefinedE2e';

/** An HTTP Request node, version 4.2, with the service's credential as its Predefined Credential Type. */
function httpRequestNode(
	name: string,
	column: number,
	service: string,
	parameters: Record<string, unknown>,
	extra: Record<string, unknown> = {},
) {
	const credentialType = CREDENTIAL_TYPES[service];
	return {
		id: `${WORKFLOW_ID}-${column}`,
		name,
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [220 * column, 0] as [number, number],
		// Once, whatever the node before answered (holidays answers a list: one item each).
		executeOnce: true,
		parameters: {
			authentication: 'predefinedCredentialType',
			nodeCredentialType: credentialType,
			...parameters,
		},
		credentials: {
			[credentialType]: {
				id: exampleCredentialId(credentialType),
				name: exampleCredentialName(credentialType),
			},
		},
		...extra,
	};
}

/** HTTP Request's Body Content Type for each form's body. */
const CONTENT_TYPES = { json: 'json', form: 'form-urlencoded' } as const;

function callNode(call: HandBuiltCall, index: number, sandbox: Sandbox) {
	const { method, body } = REQUEST_FORMS[call.form];
	const pairs = {
		parameters: Object.entries(call.fields).map(([name, value]) => ({
			name,
			value: String(value),
		})),
	};
	const sent =
		body === 'none'
			? { sendQuery: true, specifyQuery: 'keypair', queryParameters: pairs }
			: {
					sendBody: true,
					contentType: CONTENT_TYPES[body as keyof typeof CONTENT_TYPES],
					specifyBody: 'keypair',
					bodyParameters: pairs,
				};
	const url = `${sandbox.baseUrls[call.service]}${call.path}`;
	return httpRequestNode(
		`Call ${index + 1} (${call.service}, ${call.form})`,
		index + 1,
		call.service,
		{
			method,
			url,
			...sent,
			options: {},
		},
	);
}

/** The node of a call whose outcome is checked, the `index`th of CHECKED. */
function checkedNode(call: RefusedCall, index: number, sandbox: Sandbox) {
	const name = `Checked ${index + 1} (${call.service}, ${call.label})`;
	const url = `${sandbox.baseUrls[call.service]}${call.path}`;
	const parameters = { method: call.method, url, ...call.parameters(sandbox) };
	// The refusal or error is this node's output, and the calls after it still run.
	const extra = { onError: 'continueRegularOutput' };
	return httpRequestNode(name, CALLS.length + index + 1, call.service, parameters, extra);
}

function callsWorkflow(sandbox: Sandbox): Workflow {
	const calls = [
		...CALLS.map((call, index) => callNode(call, index, sandbox)),
		...CHECKED.map((call, index) => checkedNode(call, index, sandbox)),
	];
	const names = ['Start', ...calls.map((node) => node.name)];
	const connections = Object.fromEntries(
		names
			.slice(0, -1)
			.map((name, index) => [
				name,
				{ main: [[{ node: names[index + 1], type: 'main', index: 0 }]] },
			]),
	);
	return {
		id: WORKFLOW_ID,
		name: 'Predefined credentials in HTTP Request (e2e)',
		nodes: [
			{
				id: `${WORKFLOW_ID}-start`,
				name: 'Start',
				type: MANUAL_TRIGGER,
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			...calls,
		],
		connections,
		settings: { executionOrder: 'v1' },
	} as unknown as Workflow;
}

export async function runHttpRequestCheck(
	prepared: Prepared,
	sandbox: Sandbox,
	log: (line: string) => void,
): Promise<string[]> {
	const what = "The package's credentials in HTTP Request (Predefined Credential Type)";
	const env = await environmentFor(prepared);
	const workflow = callsWorkflow(sandbox);
	await importIntoN8n(prepared.runtime, env, sandbox, [workflow]);
	sandbox.reset();
	const ran = await executeWorkflow(prepared, env, workflow.id, 3);
	if ('exitCode' in ran)
		return [`${what}: n8n execute exited with ${ran.exitCode}: ${ran.why.join(' | ')}`];
	const problems: string[] = [];
	const { runData } = ran.execution.data.resultData;
	CALLS.forEach((call, index) => {
		const name = callNode(call, index, sandbox).name;
		const task = runData[name]?.[0];
		if (!task || task.error)
			problems.push(`${what}: ${name}: ${task?.error?.message ?? 'did not run'}`);
	});
	CHECKED.forEach((call, index) => {
		const name = checkedNode(call, index, sandbox).name;
		const output = JSON.stringify(runData[name]?.[0]?.data ?? null);
		if (!call.says.test(output))
			problems.push(`${what}: ${name}: does not say ${String(call.says)}: ${output.slice(0, 300)}`);
	});
	const printed = `${ran.stdout}\n${ran.stderr}`;
	for (const [service, key] of Object.entries(sandbox.keys)) {
		const at = printed.indexOf(key);
		if (at >= 0)
			problems.push(
				`${what}: the ${service} key is in what n8n printed of the run: ${printed
					.slice(Math.max(0, at - 200), at + key.length + 50)
					.split(key)
					.join('<key>')}`,
			);
	}
	for (const service of new Set([...CALLS, ...CHECKED].map((call) => call.service))) {
		const expected = [
			...CALLS.filter((call) => call.service === service).map((call) => [wirePlaceOf(call.form)]),
			...FAILING.filter((call) => call.service === service).map((call) => [call.key]),
		];
		const logged = sandbox.requests(service).map((request) => request.keyPlaces);
		if (JSON.stringify(logged) !== JSON.stringify(expected))
			problems.push(
				`${what}: ${service}: the key arrived in ${JSON.stringify(logged)}, expected ${JSON.stringify(expected)}`,
			);
	}
	log(
		`\n${what}: ${CALLS.length} calls to ${new Set(CALLS.map((call) => call.service)).size} services, ${REFUSED.length} refused and ${FAILING.length} answered with an error, ${problems.length === 0 ? 'each answered, the key once where its form puts it, the refused sent nowhere, no key in the run' : `${problems.length} problem(s)`}.`,
	);
	for (const problem of problems) console.error(`         ${problem}`);
	return problems;
}
