import { ICredentialsHelper } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	ICredentialType,
	IDataObject,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeProperties,
	IRequestOptionsSimplified,
	IWorkflowExecuteAdditionalData,
	Workflow,
} from 'n8n-workflow';

/** A credential as a workflow refers to it (`id`) and as n8n would decrypt it (`data`). */
export interface StoredCredential {
	id: string;
	name: string;
	type: string;
	data: ICredentialDataDecryptedObject;
}

/** A request a credential type's `authenticate` was given: the form its options named. */
export interface Authenticated {
	credentialType: string;
	requestForm: unknown;
}

/**
 * n8n's part in authentication, as the n8n server plays it: it hands each node its decrypted
 * credential and applies the credential type's own `authenticate` to every request a node makes
 * with `httpRequestWithAuthentication`. Nothing here knows where any service wants its key; it
 * notes the form each request named, for the tests to hold against where the key arrived.
 */
export class CredentialsHelper extends ICredentialsHelper {
	private readonly byId = new Map<string, StoredCredential>();

	/** Every request given to a credential's `authenticate`, in order. */
	readonly authenticated: Authenticated[] = [];

	constructor(
		private readonly types: Map<string, ICredentialType>,
		credentials: StoredCredential[],
	) {
		super();
		for (const credential of credentials) this.byId.set(credential.id, credential);
	}

	getParentTypes(name: string): string[] {
		const extendsTypes = this.types.get(name)?.extends ?? [];
		return extendsTypes.flatMap((parent) => [parent, ...this.getParentTypes(parent)]);
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		_workflow: Workflow,
		_node: INode,
	): Promise<IHttpRequestOptions> {
		const authenticate = this.types.get(typeName)?.authenticate;
		const options = requestOptions as IHttpRequestOptions;
		this.authenticated.push({
			credentialType: typeName,
			requestForm: (options as { requestForm?: unknown }).requestForm,
		});
		if (typeof authenticate === 'function') return await authenticate(credentials, options);
		if (authenticate?.type === 'generic') {
			const resolved = { ...options } as IDataObject;
			for (const [place, entries] of Object.entries(authenticate.properties)) {
				const target = { ...((resolved[place] as IDataObject) ?? {}) };
				for (const [name, template] of Object.entries(entries as Record<string, string>)) {
					target[name] = String(template).replace(
						/^=?\{\{\s*\$credentials\.(\w+)\s*\}\}$/,
						(_m, key: string) => String(credentials[key] ?? ''),
					);
				}
				resolved[place] = target;
			}
			return resolved as unknown as IHttpRequestOptions;
		}
		return options;
	}

	async preAuthentication(
		_helpers: IHttpRequestHelper,
		_credentials: ICredentialDataDecryptedObject,
		_typeName: string,
		_node: INode,
		_credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async getCredentials(
		_nodeCredentials: INodeCredentialsDetails,
		_type: string,
	): Promise<ICredentials> {
		throw new Error('The harness hands out decrypted credentials only');
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const stored = nodeCredentials.id ? this.byId.get(nodeCredentials.id) : undefined;
		if (!stored || stored.type !== type) {
			throw new Error(`No credential of type ${type} with id ${String(nodeCredentials.id)}`);
		}
		// Defaults of the credential type fill what was not set, as n8n does.
		const defaults: ICredentialDataDecryptedObject = {};
		for (const property of this.getCredentialsProperties(type)) {
			defaults[property.name] = property.default as ICredentialDataDecryptedObject[string];
		}
		return { ...defaults, ...stored.data };
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.types.get(type)?.properties ?? [];
	}
}
