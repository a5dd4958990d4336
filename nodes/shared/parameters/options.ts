import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidInput } from '../engine/errors';
import type { ReusePolicy, RunSettingsReader } from '../engine/types';
import { asGiven } from '../values/quoted';
import { LONGEST, numberWithin, withinLength } from '../values/validate';
import { fieldLabel } from './fieldLabel';
import { itemParameter } from '../engine/itemParameter';

/**
 * An `options` collection as the service's query parameters: each option a user added is checked
 * and sent under the service's own name; an option not added is not sent, so the service's
 * default applies. A check returns the value to send, or undefined to send nothing (an empty text).
 */
export type OptionCheck = (
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	value: unknown,
) => unknown;

/** An option of a node's Options collection that the service takes as one of its parameters. */
export interface ServiceOption {
	/** The service's parameter name: `image_size`. */
	serviceParameter: string;
	check: OptionCheck;
}

/**
 * The options a user added, checked, under the service's parameter names (`table`: by option
 * name). `definitions` are the options as the collection lists them: an error names an option by
 * its definition (fieldLabel).
 */
export function serviceParameters(
	ctx: IExecuteFunctions,
	itemIndex: number,
	options: IDataObject,
	table: Record<string, ServiceOption>,
	definitions: readonly INodeProperties[],
): IDataObject {
	const sent: IDataObject = {};
	for (const [name, value] of Object.entries(options)) {
		const option = table[name];
		if (!option) continue;
		const definition = definitions.find((candidate) => candidate.name === name);
		const field = fieldLabel(definition ?? { displayName: name, name });
		const checked = option.check(ctx, itemIndex, field, value);
		if (checked !== undefined) sent[option.serviceParameter] = checked as IDataObject[string];
	}
	return sent;
}

/** A whole number of at least `min`, with no upper bound (the services document none for sizes and delays). */
export function wholeAtLeast(min: number): OptionCheck {
	return (ctx, itemIndex, field, value) =>
		numberWithin(ctx, itemIndex, field, value, { min, whole: true });
}

/** One of a list of values (an expression may give anything). */
export function oneOf(values: readonly string[]): OptionCheck {
	return (ctx, itemIndex, field, value) => {
		const text = String(value ?? '').trim();
		if (!values.includes(text)) {
			throw invalidInput(
				ctx,
				itemIndex,
				field,
				`must be one of ${values.join(', ')}, got ${asGiven(value)}`,
			);
		}
		return text;
	};
}

/** true or false (or their text, from an expression). */
export const flag: OptionCheck = (ctx, itemIndex, field, value) => {
	if (typeof value === 'boolean') return value;
	if (value === 'true' || value === 'false') return value === 'true';
	throw invalidInput(ctx, itemIndex, field, `must be true or false, got ${asGiven(value)}`);
};

/** A text, sent as it is in the request's address (so at most LONGEST.inAddress); an empty one is not sent. */
export const optionalText: OptionCheck = (ctx, itemIndex, field, value) => {
	const text = value === undefined || value === null ? '' : String(value);
	return text.trim() === ''
		? undefined
		: withinLength(ctx, itemIndex, field, text, LONGEST.inAddress);
};

/**
 * `sendRepeatsOnce`, in every service node's Options: items (and CSV rows) of one run that would
 * send the same request send it once and share the answer (engine.ts). Lead lists repeat: the
 * same company domain for every lead of a company. Off, every item is sent: a fresh answer each.
 */
export const sendRepeatsOnceOption: INodeProperties = {
	displayName: 'Send Repeated Values Once',
	name: 'sendRepeatsOnce',
	type: 'boolean',
	default: true,
	description:
		'Whether items of one run that would send the same request send it once and each get its answer: a repeated value costs one credit, not one per item. Turn off for a fresh answer per item.',
};

/**
 * `reuseTestRunAnswers`, in every service node's Options: a test run (Execute workflow, Execute
 * step, a test webhook: n8n's manual mode) takes the answers the node's test runs paid for in the
 * last hour instead of paying again (keptAnswers.ts). People building a workflow run it again and
 * again on the same test data. Off, every test run asks the service afresh.
 */
export const reuseTestRunAnswersOption: INodeProperties = {
	displayName: 'Reuse Answers of Test Runs',
	name: 'reuseTestRunAnswers',
	type: 'boolean',
	default: true,
	description:
		"Whether a test run (Execute workflow or Execute step) reuses the answers this node's test runs paid for in the last hour: a test run pays only for values not asked before. Turn off to ask the service afresh. Production runs never reuse them.",
};

/**
 * `reuseAnswersForHours`, in every service node's Options: production runs (trigger, webhook,
 * schedule...) reuse the answers earlier production runs of the node paid for, for that long.
 * Kept in this n8n process's memory only: a restart forgets them, and in queue mode each worker
 * keeps its own.
 */
export const reuseAnswersForHoursOption: INodeProperties = {
	displayName: 'Reuse Answers For (Hours)',
	name: 'reuseAnswersForHours',
	type: 'number',
	default: 0,
	typeOptions: { minValue: 0, numberPrecision: 2 },
	description:
		"How long production runs reuse the answers earlier production runs of this node paid for, instead of paying again; 0 asks afresh every time. Kept in this n8n's memory only: a restart forgets them, and in queue mode each worker keeps its own.",
};

/**
 * `estimateOnly`, in the Options of every node that spends credits: the run reads and checks
 * everything as it would, counts the requests it would send and why others would not be sent,
 * and sends nothing (engine/estimate.ts). A large file's cost is known before it is paid.
 */
export const estimateOnlyOption: INodeProperties = {
	displayName: 'Estimate Credits Only',
	name: 'estimateOnly',
	type: 'boolean',
	default: false,
	description:
		'Whether to send nothing: one item counts the requests (credits) a run would send now, and why the others would not',
};

/** The two options of answer reuse, for a service node's Options beside Send Repeated Values Once (in the Add Option list's order). */
export const answerReuseOptions: INodeProperties[] = [
	reuseAnswersForHoursOption,
	reuseTestRunAnswersOption,
];

/** An option's name in messages: `Send Repeated Values Once (sendRepeatsOnce)`. */
function fieldOf(option: INodeProperties): string {
	return `${option.displayName} (${option.name})`;
}

/** Item `itemIndex`'s value of an option in the Options collection (its default when not added). */
function optionValue(ctx: IExecuteFunctions, itemIndex: number, option: INodeProperties): unknown {
	return itemParameter(ctx, `options.${option.name}`, itemIndex, option.default);
}

/** Item `itemIndex`'s value of a true-or-false option, checked (an expression may give anything). */
function flagOf(ctx: IExecuteFunctions, itemIndex: number, option: INodeProperties): boolean {
	return flag(ctx, itemIndex, fieldOf(option), optionValue(ctx, itemIndex, option)) as boolean;
}

/**
 * The run settings of a service node's Options, as the engine takes them (engine/engine.ts,
 * runService): every node passes this one, so each setting is read, checked and named the same
 * way everywhere.
 */
export const runSettingsFromOptions: RunSettingsReader = {
	estimateOnly(ctx) {
		let asked: boolean | undefined;
		const items = ctx.getInputData();
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			const value = flagOf(ctx, itemIndex, estimateOnlyOption);
			if (asked !== undefined && value !== asked) {
				throw invalidInput(
					ctx,
					itemIndex,
					fieldOf(estimateOnlyOption),
					'must be the same for every item: an estimate counts the whole run, or none of it',
				);
			}
			asked = value;
		}
		return asked === true;
	},
	sendRepeatsOnce: (ctx, itemIndex) => flagOf(ctx, itemIndex, sendRepeatsOnceOption),
	reusePolicy(ctx, itemIndex): ReusePolicy {
		const testRuns = flagOf(ctx, itemIndex, reuseTestRunAnswersOption);
		const hours = numberWithin(
			ctx,
			itemIndex,
			fieldOf(reuseAnswersForHoursOption),
			optionValue(ctx, itemIndex, reuseAnswersForHoursOption),
			{ min: 0 },
		);
		return { testRuns, hours };
	},
};
