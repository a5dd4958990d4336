import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidInput } from '../shared/engine/errors';
import { fieldLabel } from '../shared/parameters/fieldLabel';
import { quoted } from '../shared/values/quoted';

/**
 * The period of a holidays query, checked before any request: a day needs a month
 * and a year, a month needs a year, the year has four digits, and the date must exist. The
 * service takes month and day zero-padded, as in its sample form (01).
 */

/** The period's options of the node's Options collection, with the rules below. */
export const dayOption: INodeProperties = {
	displayName: 'Day',
	name: 'day',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: 31, numberPrecision: 0 },
	default: 1,
	description:
		'Only the holidays on this day of the month (1-31). Needs Month and Year; the date must exist.',
};

export const monthOption: INodeProperties = {
	displayName: 'Month',
	name: 'month',
	type: 'options',
	options: [
		{ name: 'January', value: 1 },
		{ name: 'February', value: 2 },
		{ name: 'March', value: 3 },
		{ name: 'April', value: 4 },
		{ name: 'May', value: 5 },
		{ name: 'June', value: 6 },
		{ name: 'July', value: 7 },
		{ name: 'August', value: 8 },
		{ name: 'September', value: 9 },
		{ name: 'October', value: 10 },
		{ name: 'November', value: 11 },
		{ name: 'December', value: 12 },
	],
	default: 1,
	description: 'Only the holidays of this month (an expression may give 1-12). Needs Year.',
};

export const yearOption: INodeProperties = {
	displayName: 'Year',
	name: 'year',
	type: 'string',
	default: '',
	placeholder: 'e.g. 2025',
	description:
		'Only the holidays of this year, four digits. Free plans need Year, Month and Day; paid plans default to the current year.',
};

const YEAR = fieldLabel(yearOption);
const MONTH = fieldLabel(monthOption);
const DAY = fieldLabel(dayOption);

/** Empty text or an absent option is "not given": the options collection may hold a blank year. */
function given(value: unknown): string | undefined {
	if (value === undefined || value === null) return undefined;
	const text = String(value).trim();
	return text === '' ? undefined : text;
}

function wholeWithin(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	text: string,
	max: number,
): number {
	const number = /^\d{1,2}$/.test(text) ? Number(text) : NaN;
	if (!(number >= 1 && number <= max)) {
		throw invalidInput(
			ctx,
			itemIndex,
			field,
			`must be a whole number from 1 to ${max}, got ${quoted(text)}`,
		);
	}
	return number;
}

const pad = (number: number) => String(number).padStart(2, '0');

/** Days of a month; setUTCFullYear, because Date.UTC reads years below 100 as 19xx. */
function daysIn(year: number, month: number): number {
	const date = new Date(0);
	date.setUTCFullYear(year, month, 0);
	return date.getUTCDate();
}

/** The query's year, month and day, as the service wants them; absent parts are left out. */
export function holidayPeriod(
	ctx: IExecuteFunctions,
	itemIndex: number,
	options: IDataObject,
): IDataObject {
	const year = given(options[yearOption.name]);
	const month = given(options[monthOption.name]);
	const day = given(options[dayOption.name]);

	if (day !== undefined && (month === undefined || year === undefined)) {
		throw invalidInput(
			ctx,
			itemIndex,
			DAY,
			`needs both ${MONTH} and ${YEAR}: the service takes a day only within a given month and year`,
		);
	}
	if (month !== undefined && year === undefined) {
		throw invalidInput(
			ctx,
			itemIndex,
			MONTH,
			`needs ${YEAR}: the service takes a month only within a given year`,
		);
	}

	const period: IDataObject = {};
	if (year === undefined) return period;
	if (!/^\d{4}$/.test(year))
		throw invalidInput(
			ctx,
			itemIndex,
			YEAR,
			`must have four digits, for instance 2025, got ${quoted(year)}`,
		);
	period.year = year;
	if (month === undefined) return period;
	const monthNumber = wholeWithin(ctx, itemIndex, MONTH, month, 12);
	period.month = pad(monthNumber);
	if (day === undefined) return period;
	const dayNumber = wholeWithin(ctx, itemIndex, DAY, day, 31);
	const daysInMonth = daysIn(Number(year), monthNumber);
	if (dayNumber > daysInMonth) {
		throw invalidInput(
			ctx,
			itemIndex,
			DAY,
			`${year}-${pad(monthNumber)} has ${daysInMonth} days, so day ${dayNumber} does not exist`,
		);
	}
	period.day = pad(dayNumber);
	return period;
}
