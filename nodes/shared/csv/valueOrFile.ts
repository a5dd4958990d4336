import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { FanOut } from '../engine/fanOut';
import { fieldLabel } from '../parameters/fieldLabel';
import type { ServiceDefinition, UnitPlanning } from '../engine/types';
import { csvFanOut } from './csvInput';
import type { CsvLookup } from './csvLookup';
import { columnOf, inputKindOf, outputOf } from './csvParameterReaders';
import { itemParameter } from '../engine/itemParameter';

/*
 * The lookup nodes take one value per item or a CSV file of them (Input: Value or CSV File). A
 * node declares its value input once; the branch between the two lives here, so every such node
 * reads its value, its column and its file the same way. It lives beside the CSV reader, not in
 * the engine: the engine knows nothing of files (csv/ imports engine/, never the reverse).
 */

/** What a node does with the values of one item, once its settings (its Options) are read. */
export interface ItemValues<Prepared> {
	/**
	 * The unit for a value: the Value parameter's (`fromFile` false) or a file row's. Throws an
	 * input error naming `field` for a value the node refuses.
	 */
	prepare(value: unknown, field: string, fromFile: boolean): Prepared;
	/** The columns of the service's answer in a result file (answerColumns.ts). */
	answerColumns: readonly string[];
}

export interface ValueInput<Prepared>
	extends Pick<CsvLookup<Prepared>, 'looksLikeValue' | 'noDataOf' | 'skippedOf'> {
	/**
	 * The Value parameter, as the node lists it: its name is read, and its display name names
	 * the value in errors ("Email (email)", a file's "Email (row 7, column 1)").
	 */
	value: INodeProperties;
	/** The parameter naming a file's column (Email Column), or 'first' (Phone's numbers). */
	column: INodeProperties | 'first';
	/**
	 * Reads item `itemIndex`'s settings, before its value or file: a bad option fails the item
	 * whatever its input.
	 */
	forItem(this: IExecuteFunctions, itemIndex: number): ItemValues<Prepared>;
}

/**
 * The node's `prepare`: the item's value as one unit, or its CSV file as one unit per row, planned
 * as the engine says (`planning`: the identity the file's first pass counts rows by, which rows).
 */
export function valueOrFile<Prepared>(
	input: ValueInput<Prepared>,
): Pick<ServiceDefinition<Prepared>, 'prepare'> {
	const { value: parameter } = input;
	const prepare = async function (
		this: IExecuteFunctions,
		itemIndex: number,
		planning: UnitPlanning<Prepared>,
	): Promise<Prepared | FanOut<Prepared>> {
		const item = input.forItem.call(this, itemIndex);
		if (inputKindOf(this, itemIndex) !== 'csvFile') {
			const value = itemParameter(this, parameter.name, itemIndex, parameter.default);
			return item.prepare(value, fieldLabel(parameter), false);
		}
		const lookup: CsvLookup<Prepared> = {
			column: input.column === 'first' ? { position: 1 } : columnOf(this, itemIndex, input.column),
			looksLikeValue: input.looksLikeValue,
			valueLabel: parameter.displayName,
			answerColumns: item.answerColumns,
			prepare: (cell, field) => item.prepare(cell, field, true),
			noDataOf: input.noDataOf,
			skippedOf: input.skippedOf,
			identityOf: planning.identityOf,
		};
		return await csvFanOut(this, itemIndex, lookup, planning);
	};
	return { prepare };
}

/**
 * Whether item `itemIndex` writes a result file, whose row holds the value beside its answer (a
 * node then need not name the value it looked up in the answer).
 */
export function writesResultFile(ctx: IExecuteFunctions, itemIndex: number): boolean {
	return inputKindOf(ctx, itemIndex) === 'csvFile' && outputOf(ctx, itemIndex) === 'resultFile';
}
