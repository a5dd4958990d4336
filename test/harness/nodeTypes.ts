import path from 'path';

import type { ICredentialType, INodeType, INodeTypes, IVersionedNodeType } from 'n8n-workflow';

import { BASE_NODE_TYPES } from './baseNodes';
import { ROOT } from './root';

export { ROOT };

/**
 * The package as n8n loads it: every node and credential file that package.json's `n8n` section
 * lists, required from `dist/` (so `npm run build` must have run), under the package's name.
 */
const manifest = require(path.join(ROOT, 'package.json')) as {
	name: string;
	n8n: { nodes: string[]; credentials: string[] };
};

export const PACKAGE_NAME = manifest.name;

function loadClass<T>(file: string): T {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const exported = require(path.join(ROOT, file)) as Record<string, new () => T>;
	const [Class] = Object.values(exported);
	return new Class();
}

let credentialTypes: Map<string, ICredentialType> | undefined;

export function packageCredentialTypes(): Map<string, ICredentialType> {
	credentialTypes ??= new Map(
		manifest.n8n.credentials.map((file) => {
			const type = loadClass<ICredentialType>(file);
			return [type.name, type];
		}),
	);
	return credentialTypes;
}

const nodeTypeCache = new Map<string, INodeType>();

/** A node of the package by its type name (`n8n-nodes-abstractapi.abstractIban`), loaded on first use. */
function packageNode(typeName: string): INodeType | undefined {
	if (nodeTypeCache.size === 0) {
		for (const file of manifest.n8n.nodes) {
			let type: INodeType;
			try {
				type = loadClass<INodeType>(file);
			} catch (error) {
				// A node file that is listed but not built yet stays unknown until it is.
				if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') continue;
				throw error;
			}
			nodeTypeCache.set(`${PACKAGE_NAME}.${type.description.name}`, type);
		}
	}
	return nodeTypeCache.get(typeName);
}

/** Every node of the package that is built, by type name, as n8n loads them. */
export function packageNodeTypes(): Map<string, INodeType> {
	packageNode('');
	return new Map(nodeTypeCache);
}

const extraTypes = new Map<string, INodeType>();

export class NodeTypes implements INodeTypes {
	/** Adds a type that only the harness knows (the test item source). */
	static register(typeName: string, type: INodeType): void {
		extraTypes.set(typeName, type);
	}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		return this.getByNameAndVersion(nodeType);
	}

	getByNameAndVersion(nodeType: string, _version?: number): INodeType {
		const type = BASE_NODE_TYPES[nodeType] ?? extraTypes.get(nodeType) ?? packageNode(nodeType);
		if (!type) throw new Error(`Unknown node type ${nodeType}`);
		return type;
	}

	getKnownTypes() {
		return {};
	}
}
