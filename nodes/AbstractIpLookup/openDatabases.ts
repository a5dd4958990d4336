import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { quoted } from '../shared/values/quoted';
import { databaseOf } from '../shared/ipDatabases/databaseSource';
import type { IpDatabase } from '../shared/ipDatabases/lookupTypes';
import { fieldLabel } from '../shared/parameters/fieldLabel';
import { answer, checkShape, ShapeError, type Shape } from './answers';
import { inputError, type ChosenFile, type DatabaseChoice } from './databaseChoice';
import { nameOf, roleOf, type DatabaseRole } from './databaseRoles';
import { moreDatabasesParameter } from './properties';

/**
 * An item's databases, parsed (once per distinct file in a run) and checked before any lookup,
 * as one function from an address to its answer: the per-item lookup and a file's rows both
 * answer through it, so that a row of a result file is the item the same address would give.
 */

export type ChosenDatabase = ChosenFile & { choice: DatabaseChoice };

/** Parsed databases of this run, by file (one node's first item, or one binary shared by items). */
export type ParsedDatabases = Map<string, Promise<IpDatabase>>;

export interface OpenedDatabases {
	roles: DatabaseRole[];
	shape: Shape;
	/** The answer for an address (4 or 16 bytes, as parseIpAddress gives it) written as `ipAddress`. */
	lookUp(address: Uint8Array, ipAddress: string): IDataObject;
}

/**
 * The error of an item as n8n shows it; `database` names which of several databases failed, and
 * the description names the file (`fileName`, when the binary has one). A NodeOperationError (an
 * input error, already naming its field) passes as it is.
 */
export function asNodeError(
	ctx: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
	database?: string,
	fileName?: string,
): NodeOperationError {
	if (error instanceof NodeOperationError) return error;
	const message = `${database ? `${database}: ` : ''}${(error as Error).message ?? String(error)}`;
	if (error instanceof ShapeError)
		return new NodeOperationError(ctx.getNode(), message, {
			itemIndex,
			description: error.description,
		});
	return new NodeOperationError(ctx.getNode(), message, {
		itemIndex,
		description: `The database file${fileName ? ` "${fileName}"` : ''} could not be used; nothing was looked up. Give the node the .mmdb or .csv file from the IP Database Download node (Output: Database File).`,
	});
}

export async function openDatabases(
	ctx: IExecuteFunctions,
	itemIndex: number,
	files: ChosenDatabase[],
	shape: Shape,
	parsed: ParsedDatabases,
): Promise<OpenedDatabases> {
	const failed = (error: unknown, { choice, file }: ChosenDatabase) =>
		asNodeError(
			ctx,
			error,
			itemIndex,
			files.length > 1 ? choice.label : undefined,
			file.binary.fileName,
		);
	const labelled = <T>(chosen: ChosenDatabase, work: () => T): T => {
		try {
			return work();
		} catch (error) {
			throw failed(error, chosen);
		}
	};
	const databases: IpDatabase[] = [];
	const roles: DatabaseRole[] = [];
	for (const chosen of files) {
		const { file, fileKey } = chosen;
		let database = parsed.get(fileKey);
		if (!database) {
			database = databaseOf(ctx, file);
			parsed.set(fileKey, database);
		}
		let opened: IpDatabase;
		try {
			opened = await database;
		} catch (error) {
			throw failed(error, chosen);
		}
		const role = roleOf(opened);
		labelled(chosen, () => checkShape(role, shape));
		databases.push(opened);
		roles.push(role);
	}
	checkOneOfEachKind(ctx, itemIndex, roles, files);
	return {
		roles,
		shape,
		lookUp(address, ipAddress) {
			const looked = databases.map((database, index) => ({
				role: roles[index],
				match: labelled(files[index], () => database.lookup(address)),
			}));
			return answer(looked, ipAddress, shape);
		},
	};
}

/** Each part of the answer from one database: two geolocation files cannot both be right. */
function checkOneOfEachKind(
	ctx: IExecuteFunctions,
	itemIndex: number,
	roles: DatabaseRole[],
	files: ChosenDatabase[],
): void {
	const seen = new Map<string, number>();
	roles.forEach((role, index) => {
		const before = seen.get(role.key);
		if (before === undefined) {
			seen.set(role.key, index);
			return;
		}
		const describe = (at: number) => `${files[at].choice.label} (${nameOf(roles[at])})`;
		throw inputError(
			ctx,
			itemIndex,
			fieldLabel(moreDatabasesParameter),
			`${describe(before)} and ${describe(index)} are both ${role.role ? `${role.role} databases` : `${quoted(role.key)} databases`}; give at most one geolocation, one ASN and one security database`,
		);
	});
}
