import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';
import type { INodeExecutionData } from 'n8n-workflow';

import { encodeJpeg } from '../sandbox/media/jpeg';
import { encodePng } from '../sandbox/media/png';
import { colorOf, Raster, seedOf } from '../sandbox/media/raster';
import type { LoggedRequest } from '../sandbox/types';

/** The bytes of an output item's binary property, held in the item (memory mode) or on disk (filesystem mode). */
export async function binaryBytes(item: INodeExecutionData, property = 'data'): Promise<Buffer> {
	const binary = item.binary?.[property];
	if (!binary) throw new Error(`The item has no binary property ${property}`);
	if (binary.id) return await Container.get(BinaryDataService).getAsBuffer(binary);
	return Buffer.from(binary.data, 'base64');
}

/** A picture to upload or to serve from the storage host, of a known size. */
export function picture(format: 'png' | 'jpeg', width: number, height: number): Buffer {
	const raster = new Raster(width, height, colorOf(seedOf(`${format}${width}x${height}`)));
	raster.fillRect(width / 3, height / 3, width / 3, height / 3, [20, 20, 20, 255]);
	return format === 'png' ? encodePng(raster) : encodeJpeg(raster);
}

/** Whether a request carried a key in any form: api_key, an Authorization header, or the key text anywhere. */
export function carriesKey(entry: LoggedRequest, key: string): boolean {
	return (
		'api_key' in entry.query ||
		entry.headers.authorization !== undefined ||
		JSON.stringify(entry.headers).includes(key) ||
		JSON.stringify(entry.query).includes(key) ||
		entry.path.includes(key)
	);
}

/** Image Processing of the image at each item's `url`, resized to 10x10 and downloaded into `small`. */
export const SMALL_DOWNLOAD = {
	source: 'url',
	url: '={{ $json.url }}',
	resizeStrategy: 'exact',
	width: 10,
	height: 10,
	downloadResult: true,
	outputBinaryPropertyName: 'small',
};
