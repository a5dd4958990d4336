import path from 'path';

/**
 * Whether a file's bytes are what its MIME type or extension claims: the magic numbers of the
 * formats the package produces (images, archives, MaxMind databases, CSV). Returns the reason
 * when they are not, undefined when they are or when the kind is not one we know.
 */
export function signatureProblem(bytes: Buffer, kind: string): string | undefined {
	const format = formatOf(kind);
	if (bytes.length === 0) return 'the file is empty';
	if (!format) return undefined;
	const check = CHECKS[format];
	return check(bytes)
		? undefined
		: `its bytes are not ${format} (starts with ${bytes.subarray(0, 8).toString('hex')})`;
}

type Format = 'PNG' | 'JPEG' | 'SVG' | 'gzip' | 'MaxMind DB' | 'CSV';

const CHECKS: Record<Format, (bytes: Buffer) => boolean> = {
	PNG: (bytes) =>
		bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
	JPEG: (bytes) =>
		bytes[0] === 0xff &&
		bytes[1] === 0xd8 &&
		bytes[2] === 0xff &&
		bytes.at(-2) === 0xff &&
		bytes.at(-1) === 0xd9,
	SVG: (bytes) =>
		/<svg[\s>]/.test(bytes.subarray(0, 4096).toString('utf8')) &&
		bytes.toString('utf8').trimEnd().endsWith('</svg>'),
	gzip: (bytes) => bytes[0] === 0x1f && bytes[1] === 0x8b,
	// The metadata section of every MaxMind DB starts after this marker, near the file's end.
	'MaxMind DB': (bytes) => bytes.lastIndexOf(Buffer.from('\xab\xcd\xefMaxMind.com', 'latin1')) >= 0,
	CSV: (bytes) => {
		const text = bytes.toString('utf8');
		return !text.includes('\u0000') && /^[^\n]*,[^\n]*\r?\n/.test(text);
	},
};

/** The format a MIME type (`image/png`) or a file name (`x.tar.gz`) stands for. */
function formatOf(kind: string): Format | undefined {
	const lower = kind.toLowerCase();
	const byMime: Record<string, Format> = {
		'image/png': 'PNG',
		'image/jpeg': 'JPEG',
		'image/jpg': 'JPEG',
		'image/svg+xml': 'SVG',
		'application/gzip': 'gzip',
		'application/x-gzip': 'gzip',
		'application/vnd.maxmind.maxmind-db': 'MaxMind DB',
		'text/csv': 'CSV',
	};
	if (lower.includes('/')) return byMime[lower.split(';')[0].trim()];
	const byExtension: Record<string, Format> = {
		'.png': 'PNG',
		'.jpg': 'JPEG',
		'.jpeg': 'JPEG',
		'.svg': 'SVG',
		'.gz': 'gzip',
		'.tgz': 'gzip',
		'.mmdb': 'MaxMind DB',
		'.csv': 'CSV',
	};
	return byExtension[path.extname(lower)];
}
