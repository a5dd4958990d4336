import { badRequest } from '../errorBody';
import type { ServiceModule } from '../types';

/** IBAN validation: white space is accepted, the check is ISO 13616 mod 97. */
export const iban: ServiceModule = {
	name: 'iban',
	keyFrom: ['query'],
	handle(request) {
		if (request.method !== 'GET' || request.path !== '/v1/') return badRequest('Use GET /v1/.');
		const submitted = request.query.iban;
		if (!submitted) return badRequest('Parameter iban is required.');
		return { status: 200, json: { iban: submitted, is_valid: isValidIban(submitted) } };
	},
};

const LENGTHS: Record<string, number> = {
	AD: 24,
	AT: 20,
	BE: 16,
	BG: 22,
	CH: 21,
	CY: 28,
	CZ: 24,
	DE: 22,
	DK: 18,
	EE: 20,
	ES: 24,
	FI: 18,
	FR: 27,
	GB: 22,
	GR: 27,
	HR: 21,
	HU: 28,
	IE: 22,
	IS: 26,
	IT: 27,
	LI: 21,
	LT: 20,
	LU: 20,
	LV: 21,
	MC: 27,
	MT: 31,
	NL: 18,
	NO: 15,
	PL: 28,
	PT: 25,
	RO: 24,
	SE: 24,
	SI: 19,
	SK: 24,
	SM: 27,
};

export function isValidIban(value: string): boolean {
	const compact = value.replace(/\s+/g, '').toUpperCase();
	if (!/^[A-Z]{2}\d{2}[A-Z\d]{10,30}$/.test(compact)) return false;
	const expected = LENGTHS[compact.slice(0, 2)];
	if (expected !== undefined && compact.length !== expected) return false;
	const rearranged = compact.slice(4) + compact.slice(0, 4);
	const digits = rearranged.replace(/[A-Z]/g, (letter) => String(letter.charCodeAt(0) - 55));
	let remainder = 0;
	for (const digit of digits) remainder = (remainder * 10 + Number(digit)) % 97;
	return remainder === 1;
}
