import type { ServiceModule } from '../types';
import { avatars } from './avatars';
import { company } from './company';
import { database } from './database';
import { email } from './email';
import { geo } from './geo';
import { holidays } from './holidays';
import { iban } from './iban';
import { images } from './images';
import { phone } from './phone';
import { screenshot } from './screenshot';
import { vat } from './vat';

/** Every service of the suite, each under its own path prefix. */
export const SERVICES: ServiceModule[] = [
	phone,
	email,
	geo,
	company,
	holidays,
	vat,
	iban,
	images,
	avatars,
	screenshot,
	database,
];
