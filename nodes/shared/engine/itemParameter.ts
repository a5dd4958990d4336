import type { IExecuteFunctions } from 'n8n-workflow';

/*
 * n8n-core's getNodeParameter resolves a parameter anew on every call: it walks the raw value for
 * expressions, cleans it up and checks it against the node's description. A node that reads its
 * settings per item (an item's expression may choose them) pays that for every setting of every
 * item, though a setting whose raw value holds no expression resolves to the same value for each
 * one. So such a value is resolved once per run (per execution context) and handed out as a copy
 * to each item; a value that holds an expression is still resolved per item, by n8n.
 */

/**
 * What a run knows of a parameter: its plain value, or that it holds an expression. One not set
 * on the node was read as its `fallback`, and is known only for that same fallback.
 */
type Known = { unset: boolean; fallback: unknown } & ({ value: unknown } | { expression: true });

/** A run's parameters by name, as far as they were read. */
const knownOfRun = new WeakMap<IExecuteFunctions, Map<string, Known>>();

/** Stands for "not set on the node" when the raw value is looked up (no parameter holds it). */
const NOT_SET = Symbol('not set');

/**
 * Item `itemIndex`'s value of parameter `name` (a path such as `options.sendAs`), as
 * `ctx.getNodeParameter(name, itemIndex, fallback)` gives it: the same value, errors and
 * validation, read once per run when it holds no expression.
 */
export function itemParameter(
	ctx: IExecuteFunctions,
	name: string,
	itemIndex: number,
	fallback?: unknown,
): unknown {
	let knownOfParameter = knownOfRun.get(ctx);
	const known = knownOfParameter?.get(name);
	if (known !== undefined && (!known.unset || Object.is(known.fallback, fallback))) {
		if ('value' in known) return copyOf(known.value);
		return ctx.getNodeParameter(name, itemIndex, fallback as never) as unknown;
	}
	const raw: unknown = ctx.getNodeParameter(name, itemIndex, NOT_SET as never, {
		rawExpressions: true,
	});
	// n8n resolves and validates it (and throws for this item, naming it).
	const value = ctx.getNodeParameter(name, itemIndex, fallback as never) as unknown;
	// Not set, the fallback stands in: a fallback object is made anew by each caller (not kept).
	const unset = raw === NOT_SET;
	if (unset && isObject(fallback)) return value;
	if (knownOfParameter === undefined) {
		knownOfParameter = new Map();
		knownOfRun.set(ctx, knownOfParameter);
	}
	knownOfParameter.set(
		name,
		holdsExpression(unset ? fallback : raw)
			? { unset, fallback, expression: true }
			: { unset, fallback, value: copyOf(value) },
	);
	return value;
}

/** Whether a raw value is, or holds, an n8n expression (a text starting with `=`). */
function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(holdsExpression);
	if (isObject(value)) return Object.values(value).some(holdsExpression);
	return false;
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null;
}

/** Each item gets its own copy, as from n8n: a reader that changes its value changes no other item's. */
function copyOf(value: unknown): unknown {
	return isObject(value) ? structuredClone(value) : value;
}
