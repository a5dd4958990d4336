/**
 * The identity of a prepared request, for "one request per distinct value in a run": two units
 * with the same key would send the same request (same path, parameters and body; the credential
 * is the node's one for the whole run), so the second shares the first's answer.
 *
 * Only plain data has a key. A request carrying bytes or a form object (an uploaded image, a
 * multipart body) has none and is always sent: comparing files is not worth a request's price.
 *
 * The key is the request as JSON with every object's keys sorted (so `{ a, b }` and `{ b, a }`
 * are one request), written in one pass: a 50,000-row file asks for 100,000 keys (its check and
 * its run), so no sorted copy of any object is made.
 */
export function requestKey(prepared: unknown): string | undefined {
	const value = toJsonValue(prepared, '');
	if (isOmitted(value)) return undefined;
	const parts: string[] = [];
	return append(parts, value) ? parts.join('') : undefined;
}

/** Appends `value` as JSON; false when it holds anything but plain data (nothing then counts). */
function append(parts: string[], value: unknown): boolean {
	switch (typeof value) {
		case 'string':
			parts.push(JSON.stringify(value));
			return true;
		case 'number':
			parts.push(Number.isFinite(value) ? String(value) : 'null');
			return true;
		case 'boolean':
			parts.push(value ? 'true' : 'false');
			return true;
		case 'object':
			break;
		default:
			// A bigint: JSON has no form for it.
			return false;
	}
	if (value === null) {
		parts.push('null');
		return true;
	}
	if (Array.isArray(value)) {
		parts.push('[');
		for (let index = 0; index < value.length; index++) {
			if (index > 0) parts.push(',');
			const item = toJsonValue(value[index], String(index));
			if (isOmitted(item)) parts.push('null');
			else if (!append(parts, item)) return false;
		}
		parts.push(']');
		return true;
	}
	const prototype = Object.getPrototypeOf(value) as unknown;
	if (prototype !== Object.prototype && prototype !== null) return false;
	const object = value as Record<string, unknown>;
	parts.push('{');
	let first = true;
	for (const name of Object.keys(object).sort()) {
		const item = toJsonValue(object[name], name);
		if (isOmitted(item)) continue;
		parts.push(first ? '' : ',', JSON.stringify(name), ':');
		first = false;
		if (!append(parts, item)) return false;
	}
	parts.push('}');
	return true;
}

/** What JSON.stringify would write for `value`: its `toJSON()` (a Date, a Buffer) where it has one. */
function toJsonValue(value: unknown, key: string): unknown {
	if (
		value !== null &&
		typeof value === 'object' &&
		typeof (value as { toJSON?: unknown }).toJSON === 'function'
	) {
		return (value as { toJSON(key: string): unknown }).toJSON(key);
	}
	return value;
}

/** Values JSON leaves out of an object (and writes as null in an array). */
function isOmitted(value: unknown): boolean {
	return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}
