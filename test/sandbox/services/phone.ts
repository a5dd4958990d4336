import { errorResponse } from '../errorBody';
import type { ServiceModule } from '../types';

/** Placeholder until this service is emulated. */
export const phone: ServiceModule = {
	name: 'phone',
	keyFrom: ['bearer', 'form', 'query'],
	handle: () => errorResponse(501, 'not emulated yet', 'not_implemented'),
};
