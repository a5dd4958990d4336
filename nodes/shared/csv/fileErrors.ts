import { NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions } from 'n8n-workflow';

import { fieldLabel } from '../parameters/fieldLabel';
import { csvBinaryParameter } from './csvParameters';

/**
 * Errors that stop a whole file before any of its rows is sent: a file rule broken or a
 * parameter the file cannot be read with. Each says that no row cost a credit, since a person
 * who sees a file refused will want to know whether to pay for its rows again.
 */

const BINARY_FIELD = fieldLabel(csvBinaryParameter);

const fileNotSent = (itemIndex: number) =>
	`No row of item ${itemIndex + 1}'s file was sent, so it cost no credit. Fix the file or the parameter and run again.`;

/** A broken file rule: an error of the file's item, which says that no row was sent. */
export function fileRuleError(
	ctx: IExecuteFunctions,
	itemIndex: number,
): (rule: string) => NodeOperationError {
	return (rule) =>
		new NodeOperationError(ctx.getNode(), `Invalid CSV file in ${BINARY_FIELD}: ${rule}`, {
			itemIndex,
			description: fileNotSent(itemIndex),
		});
}

/** A parameter error that stops the whole file: it says that no row of the file was sent. */
export function fileInputError(itemIndex: number, error: NodeOperationError): NodeOperationError {
	error.description = fileNotSent(itemIndex);
	return error;
}
