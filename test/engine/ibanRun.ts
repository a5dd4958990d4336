import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import type { Sandbox } from '../sandbox/server';

/** IBANs the sandbox finds valid, for runs whose subject is the engine rather than IBAN. */
export const VALID_IBANS = [
	'DE89370400440532013000',
	'GB82WEST12345698765432',
	'FR1420041010050500013M02606',
	'NL91ABNA0417164300',
	'BE71096123456769',
	'ES9121000418450200051332',
	'IT60X0542811101000000123456',
	'AT611904300234573201',
	'CH9300762011623852957',
	'DK5000400440116243',
];

/** The IBAN node on the given values (one item each), through the engine, against the sandbox. */
export function runIban(
	sandbox: Sandbox,
	ibans: string[],
	options: { credential?: IDataObject; continueOnFail?: boolean; sendRepeatsOnce?: boolean } = {},
) {
	return runNode({
		type: 'abstractIban',
		parameters: {
			iban: '={{ $json.iban }}',
			options: { sendRepeatsOnce: options.sendRepeatsOnce ?? true },
		},
		credential: sandboxCredential(sandbox, 'iban', options.credential),
		items: ibans.map((iban) => ({ json: { iban } })),
		continueOnFail: options.continueOnFail,
	});
}

/** Everything an error carries that n8n may show or store, as one text to search. */
export function everythingIn(error: unknown): string {
	if (!error) return '';
	const { message, description, context, cause, messages } = error as Record<string, unknown>;
	return JSON.stringify(
		{ message, description, context, cause, messages, all: error },
		(_key, value: unknown) =>
			value instanceof Error ? { message: value.message, stack: value.stack } : value,
	);
}
