import { badRequest } from '../errorBody';
import { PictureCache } from '../media/cache';
import { MIME_TYPES } from '../media/imageInfo';
import {
	boolean,
	decimal,
	hex,
	integer,
	oneOf,
	ParameterError,
	rejectUnknown,
} from '../media/params';
import { encodePng } from '../media/png';
import { hexToRgba, Raster } from '../media/raster';
import { svgAvatar } from '../media/svg';
import type { SvgAvatar } from '../media/svg';
import type { ServiceModule } from '../types';

/**
 * Avatars (under the names the live service takes): GET /v1/ answers the image itself, a PNG or an
 * SVG of image_size x image_size pixels with the initials of `name`.
 */
const PARAMETERS = [
	'name',
	'image_size',
	'image_format',
	'font_size',
	'char_limit',
	'background_color',
	'font_color',
	'is_rounded',
	'is_uppercase',
	'is_italic',
	'is_bold',
] as const;

const pictures = new PictureCache();

export const avatars: ServiceModule = {
	name: 'avatars',
	keyFrom: ['query'],
	handle(request) {
		if (request.method !== 'GET' || request.path !== '/v1/') return badRequest('Use GET /v1/.');
		const { query } = request;
		try {
			rejectUnknown(query, PARAMETERS);
			const name = (query.name ?? '').trim();
			if (name === '') throw new ParameterError('Parameter name is required.');
			if (!/[\p{L}\p{N}]/u.test(name)) {
				// Quotes the request as some services do: the key is in it, so a client must redact.
				const echoed = new URLSearchParams(query).toString();
				throw new ParameterError(
					`No initials can be made from name "${name}" (request: /v1/?${echoed}).`,
				);
			}
			const format = oneOf(query, 'image_format', ['png', 'svg'] as const, 'png');
			const avatar: SvgAvatar = {
				size: integer(query, 'image_size', 6, 512, 128)!,
				fontSize: decimal(query, 'font_size', 0.1, 1, 0.7),
				initials: initialsOf(
					name,
					integer(query, 'char_limit', 1, 1000, 2)!,
					boolean(query, 'is_uppercase', true),
				),
				background: hex(query, 'background_color', '335eea'),
				color: hex(query, 'font_color', 'ffffff'),
				rounded: boolean(query, 'is_rounded', false),
				italic: boolean(query, 'is_italic', false),
				bold: boolean(query, 'is_bold', false),
			};
			const bytes = pictures.get(`${format}\n${JSON.stringify(avatar)}`, () =>
				format === 'svg' ? svgAvatar(avatar) : pngAvatar(avatar),
			);
			return { status: 200, headers: { 'Content-Type': MIME_TYPES[format] }, bytes };
		} catch (error) {
			if (error instanceof ParameterError) return badRequest(error.message);
			throw error;
		}
	},
};

/**
 * At most `limit` characters: first letters of distinct words, then second letters of those
 * words, so "Ada" with a limit of 2 shows "AD".
 */
export function initialsOf(name: string, limit: number, uppercase: boolean): string {
	const words = [...new Set(name.split(/\s+/).filter(Boolean))];
	const chars = words.map((word) => [...word][0]);
	for (const word of words) {
		const second = [...word][1];
		if (second) chars.push(second);
	}
	const initials = chars.slice(0, limit).join('');
	return uppercase ? initials.toUpperCase() : initials;
}

/** The PNG form: the background (a disc when rounded) and one block per initial in the font colour. */
function pngAvatar(avatar: SvgAvatar): Buffer {
	const { size } = avatar;
	const raster = new Raster(size, size, hexToRgba(avatar.background));
	const glyphHeight = Math.max(1, Math.round(size * avatar.fontSize * 0.7));
	const glyphWidth = Math.max(1, Math.round(glyphHeight * (avatar.bold ? 0.7 : 0.55)));
	const gap = Math.max(1, Math.round(glyphWidth * 0.25));
	const count = [...avatar.initials].length;
	const total = count * glyphWidth + (count - 1) * gap;
	const slant = avatar.italic ? Math.round(glyphWidth * 0.2) : 0;
	for (let i = 0; i < count; i++) {
		const left = Math.round((size - total) / 2) + i * (glyphWidth + gap);
		const top = Math.round((size - glyphHeight) / 2);
		raster.fillRect(
			left + slant,
			top,
			glyphWidth,
			Math.ceil(glyphHeight / 2),
			hexToRgba(avatar.color),
		);
		raster.fillRect(
			left,
			top + Math.ceil(glyphHeight / 2),
			glyphWidth,
			Math.floor(glyphHeight / 2),
			hexToRgba(avatar.color),
		);
	}
	if (avatar.rounded) raster.clipToDisc();
	return encodePng(raster);
}
