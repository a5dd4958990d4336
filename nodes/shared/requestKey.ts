/**
 * The identity of a prepared request, for "one request per distinct value in a run": two units
 * with the same key would send the same request (same path, parameters and body; the credential
 * is the node's one for the whole run), so the second shares the first's answer.
 *
 * Only plain data has a key. A request carrying bytes or a form object (an uploaded image, a
 * multipart body) has none and is always sent: comparing files is not worth a request's price.
 */
export function requestKey(prepared: unknown): string | undefined {
	let plain = true;
	const text = JSON.stringify(prepared, (_key, value: unknown) => {
		if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
		const prototype = Object.getPrototypeOf(value) as unknown;
		if (prototype !== Object.prototype && prototype !== null) {
			plain = false;
			return undefined;
		}
		// Keys sorted, so that { a, b } and { b, a } are one request.
		return Object.fromEntries(Object.entries(value as object).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
	});
	return plain && text !== undefined ? text : undefined;
}
