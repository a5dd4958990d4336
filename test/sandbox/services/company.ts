import { errorResponse } from '../errorBody';
import type { ServiceModule } from '../types';

/** Placeholder until this service is emulated. */
export const company: ServiceModule = {
	name: 'company',
	keyFrom: ['query'],
	handle: () => errorResponse(501, 'not emulated yet', 'not_implemented'),
};
