import { errorResponse } from '../errorBody';
import type { ServiceModule } from '../types';

/** Placeholder until this service is emulated. */
export const database: ServiceModule = {
	name: 'api',
	keyFrom: ['query'],
	handle: () => errorResponse(501, 'not emulated yet', 'not_implemented'),
};
