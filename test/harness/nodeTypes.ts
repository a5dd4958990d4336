import type { INodeType, INodeTypes, IVersionedNodeType } from 'n8n-workflow';

import { BASE_NODE_TYPES } from './baseNodes';
import { loadClass, manifest, PACKAGE_NAME, packageCredentialTypes } from './packageFiles';
import { ROOT } from './root';

export { PACKAGE_NAME, packageCredentialTypes, ROOT };

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
