import { errorResponse } from '../errorBody';
import type { ServiceModule } from '../types';

/** Placeholder until this service is emulated. */
export const images: ServiceModule = {
	name: 'images',
	keyFrom: ['json', 'multipart'],
	handle: () => errorResponse(501, 'not emulated yet', 'not_implemented'),
};
