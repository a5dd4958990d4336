import type { NodeRun } from './run';
import type { Sandbox } from '../sandbox/server';
import type { SandboxRequest } from '../sandbox/types';

/** The node's Settings > Retry On Fail as a user sets it (3 tries), with a short wait so that runs stay quick. */
export const RETRY_ON_FAIL: NodeRun['settings'] = {
	retryOnFail: true,
	maxTries: 3,
	waitBetweenTries: 10,
};

/**
 * A sandbox fault picker (`faultWhen`) that picks the first request `when` picks, and no later
 * one: a failure that n8n's next try of the node heals.
 */
export function firstTimeOnly(
	when: (request: SandboxRequest) => boolean,
): (request: SandboxRequest) => boolean {
	let left = 1;
	return (request) => when(request) && left-- > 0;
}

/** A workflow id of its own for each run of a test or bench: kept answers are filed by workflow. */
let workflows = 0;
export const newWorkflowId = (prefix: string) => `${prefix}-${++workflows}`;

/** The address an Email Reputation request carries (its query or its form field). */
export const emailOf = (request: Pick<SandboxRequest, 'fields' | 'query'>) =>
	String(request.fields.email ?? request.query.email);

/** The addresses the sandbox's email service answered (200: charged), sorted. */
export const paidEmails = (sandbox: Sandbox) =>
	sandbox
		.requests('email')
		.filter((request) => request.status === 200)
		.map(emailOf)
		.sort();
