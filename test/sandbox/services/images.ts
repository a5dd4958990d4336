import { createHash } from 'crypto';

import { badRequest } from '../errorBody';
import { PictureCache } from '../media/cache';
import { imageInfo, MIME_TYPES } from '../media/imageInfo';
import type { ImageInfo } from '../media/imageInfo';
import { encodeJpeg } from '../media/jpeg';
import { isHttpUrl, ParameterError } from '../media/params';
import { encodePng } from '../media/png';
import { colorOf, Raster, seedOf } from '../media/raster';
import type { SandboxContext, SandboxRequest, SandboxResponse, ServiceModule } from '../types';

/**
 * Image processing: POST /v1/url/ with a JSON
 * body, or POST /v1/upload/ with a multipart `image` part and the JSON options in a `data` part.
 * The source's real dimensions are read from its bytes; the result's follow the resize strategy;
 * the processed image is put on the storage host and the answer links to it.
 */

/** Keys each strategy uses, and which of them it cannot do without. */
const STRATEGIES: Record<string, { required: string[]; optional: string[] }> = {
	exact: { required: ['width', 'height'], optional: [] },
	portrait: { required: ['height'], optional: [] },
	landscape: { required: ['width'], optional: [] },
	auto: { required: ['width', 'height'], optional: [] },
	fit: { required: ['width', 'height'], optional: ['crop_mode'] },
	// x and y: a custom crop origin (the live service takes them).
	crop: { required: ['width', 'height'], optional: ['scale', 'crop_mode', 'x', 'y'] },
	square: { required: ['size'], optional: [] },
	fill: { required: ['width', 'height'], optional: ['background'] },
};

const MAX_SOURCE_BYTES = 32 * 1024 * 1024;
const OPTION_KEYS = ['api_key', 'lossy', 'quality', 'resize'];

const synthesized = new PictureCache();

/** Processings so far in this process: each gets a link of its own. */
let processings = 0;
export const images: ServiceModule = {
	name: 'images',
	keyFrom: ['json', 'multipart'],
	handle(request, sandbox) {
		try {
			if (request.method === 'POST' && request.path === '/v1/url/')
				return fromUrl(request, sandbox);
			if (request.method === 'POST' && request.path === '/v1/upload/')
				return fromUpload(request, sandbox);
			return badRequest('Use POST /v1/url/ (JSON) or POST /v1/upload/ (multipart).');
		} catch (error) {
			if (error instanceof ParameterError) return badRequest(error.message);
			throw error;
		}
	},
};

function fromUrl(request: SandboxRequest, sandbox: SandboxContext): SandboxResponse {
	if (!/^application\/json/i.test(String(request.headers['content-type'] ?? ''))) {
		throw new ParameterError('Send a JSON body with Content-Type: application/json.');
	}
	const options = request.fields;
	checkKeys(options, [...OPTION_KEYS, 'url'], '');
	if (!isHttpUrl(options.url))
		throw new ParameterError('Parameter url is required: the http(s) address of the image.');
	const source = fetchSource(options.url, sandbox);
	const name = new URL(options.url).pathname.split('/').pop() || 'image';
	return process(source, options, name, sandbox);
}

function fromUpload(request: SandboxRequest, sandbox: SandboxContext): SandboxResponse {
	const image = request.parts.find((part) => part.name === 'image');
	const data = request.parts.find((part) => part.name === 'data');
	if (!image || image.data.length === 0)
		throw new ParameterError('Part image is required: the file to process.');
	let options: Record<string, unknown> = {};
	if (data) {
		try {
			options = JSON.parse(data.data.toString('utf8')) as Record<string, unknown>;
		} catch {
			throw new ParameterError('Part data must hold the options as JSON.');
		}
	}
	// The options as received, so the request log shows what the upload's `data` part held.
	Object.assign(request.fields, options);
	checkKeys(options, OPTION_KEYS, '');
	return process(image.data, options, image.fileName || 'upload', sandbox);
}

/** An image on the sandbox's storage host is fetched as stored; any other address gets a picture of its own. */
function fetchSource(url: string, sandbox: SandboxContext): Buffer {
	const address = new URL(url);
	if (address.origin === new URL(sandbox.storage.baseUrl).origin) {
		const stored = sandbox.storage.get(address.pathname);
		if (!stored) throw new ParameterError(`The image at url could not be fetched (404).`);
		return stored.bytes;
	}
	return synthesized.get(url, () => {
		const seed = seedOf(url);
		const picture = new Raster(320 + (seed % 1281), 240 + ((seed >>> 11) % 961), colorOf(seed));
		picture.fillRect(
			picture.width / 4,
			picture.height / 4,
			picture.width / 2,
			picture.height / 2,
			colorOf(seed, 8),
		);
		return /\.png$/i.test(address.pathname) ? encodePng(picture) : encodeJpeg(picture);
	});
}

function process(
	source: Buffer,
	options: Record<string, unknown>,
	name: string,
	sandbox: SandboxContext,
): SandboxResponse {
	if (source.length > MAX_SOURCE_BYTES) throw new ParameterError('The image exceeds 32 MB.');
	const original = imageInfo(source);
	if (!original || original.format === 'svg')
		throw new ParameterError('The file is not a PNG or JPEG image.');
	if (options.lossy !== undefined && typeof options.lossy !== 'boolean') {
		throw new ParameterError('Parameter lossy must be true or false.');
	}
	if (options.quality !== undefined) wholeNumber(options.quality, 'quality', 0, 100);
	const [width, height] = resultSize(original, options.resize);

	const seed = seedOf(createHash('sha256').update(source).digest('hex'));
	const picture = new Raster(width, height, colorOf(seed));
	picture.fillRect(width / 4, height / 4, width / 2, height / 2, colorOf(seed, 8));
	const processed = original.format === 'png' ? encodePng(picture) : encodeJpeg(picture);
	// Each processing stores a file of its own, as the service's storage does: a link once gone stays gone.
	const id = createHash('sha256')
		.update(source)
		.update(JSON.stringify(options.resize ?? null))
		.update(String(++processings))
		.digest('hex')
		.slice(0, 16);
	const extension = original.format === 'png' ? 'png' : 'jpg';
	const fileName = `${name.replace(/\.[^.]*$/, '').replace(/[^\w-]+/g, '-') || 'image'}.${extension}`;
	const url = sandbox.storage.put(
		`/processed/${id}/${fileName}`,
		processed,
		MIME_TYPES[original.format],
	);
	return {
		status: 200,
		json: {
			original_size: source.length,
			original_height: original.height,
			original_width: original.width,
			final_size: processed.length,
			bytes_saved: Math.max(0, source.length - processed.length),
			final_height: height,
			final_width: width,
			url,
		},
	};
}

function checkKeys(object: Record<string, unknown>, allowed: string[], prefix: string): void {
	const unknown = Object.keys(object).filter((key) => !allowed.includes(key));
	if (unknown.length > 0)
		throw new ParameterError(`Unknown parameter ${prefix}${unknown.join(`, ${prefix}`)}.`);
}

function wholeNumber(
	value: unknown,
	name: string,
	min: number,
	max = Number.MAX_SAFE_INTEGER,
): number {
	if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
		throw new ParameterError(
			`Parameter ${name} must be a whole number${max === Number.MAX_SAFE_INTEGER ? ` of at least ${min}` : ` from ${min} to ${max}`}.`,
		);
	}
	return value;
}

const RGB = /^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$/i;

/** The result's dimensions by strategy, after checking the resize object. */
function resultSize(original: ImageInfo, resize: unknown): [number, number] {
	if (resize === undefined) return [original.width, original.height];
	if (typeof resize !== 'object' || resize === null || Array.isArray(resize)) {
		throw new ParameterError('Parameter resize must be an object.');
	}
	const instructions = resize as Record<string, unknown>;
	const strategy = STRATEGIES[String(instructions.strategy)];
	if (!strategy)
		throw new ParameterError(
			`Parameter resize.strategy must be one of ${Object.keys(STRATEGIES).join(', ')}.`,
		);
	const used = [...strategy.required, ...strategy.optional];
	const unused = Object.keys(instructions).filter(
		(key) => key !== 'strategy' && !used.includes(key),
	);
	if (unused.length > 0) {
		throw new ParameterError(
			`resize.${unused.join(', resize.')} is not used by the ${String(instructions.strategy)} strategy.`,
		);
	}
	for (const key of strategy.required) {
		if (instructions[key] === undefined)
			throw new ParameterError(
				`resize.${key} is required by the ${String(instructions.strategy)} strategy.`,
			);
		wholeNumber(instructions[key], `resize.${key}`, 1);
	}
	for (const key of ['x', 'y'])
		if (instructions[key] !== undefined) wholeNumber(instructions[key], `resize.${key}`, 0);
	const { scale, background } = instructions;
	if (scale !== undefined && (typeof scale !== 'number' || !(scale > 0))) {
		throw new ParameterError('Parameter resize.scale must be a positive number (percent).');
	}
	if (instructions.crop_mode !== undefined && typeof instructions.crop_mode !== 'string') {
		throw new ParameterError('Parameter resize.crop_mode must be a string.');
	}
	if (background !== undefined) {
		const rgb = RGB.exec(String(background));
		const valid = rgb
			? rgb.slice(1).every((part) => Number(part) <= 255)
			: /^#?([\da-f]{3}|[\da-f]{6})$/i.test(String(background));
		if (!valid)
			throw new ParameterError(
				'Parameter resize.background must be rgb(r, g, b) with 0-255 components, or hex.',
			);
	}

	const { width: w0, height: h0 } = original;
	const width = instructions.width as number;
	const height = instructions.height as number;
	const byHeight = (): [number, number] => [Math.max(1, Math.round((w0 * height) / h0)), height];
	const byWidth = (): [number, number] => [width, Math.max(1, Math.round((h0 * width) / w0))];
	switch (instructions.strategy) {
		case 'portrait':
			return byHeight();
		case 'landscape':
			return byWidth();
		case 'auto':
			return w0 >= h0 ? byWidth() : byHeight();
		case 'square':
			return [instructions.size as number, instructions.size as number];
		case 'crop':
			if (scale === undefined) return [width, height];
			return [
				Math.max(1, Math.round((width * (scale as number)) / 100)),
				Math.max(1, Math.round((height * (scale as number)) / 100)),
			];
		default: // exact, fit, fill: the given box
			return [width, height];
	}
}
