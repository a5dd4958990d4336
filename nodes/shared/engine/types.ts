import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
} from 'n8n-workflow';

import type { FanOut } from './fanOut';

/** One request to a service, as a node describes it; the engine adds address, key, pacing and retries. */
export interface ServiceRequest {
	/**
	 * The name of the request's form (credentials/shared/requestForms.ts, whose requestIn builds
	 * the request): the engine hands it to the credential's `authenticate` as the `requestForm`
	 * option, and the credential puts the key where that form says.
	 */
	requestForm: string;
	method?: 'GET' | 'POST';
	/** The versioned path, appended to the credential's Base URL (which may carry a prefix). */
	path: string;
	qs?: IDataObject;
	/** A JSON body (Content-Type: application/json). */
	json?: IDataObject;
	/** A form-encoded body. */
	form?: Record<string, string>;
	/** A multipart body. */
	multipart?: FormData;
	/** 'json' (default) parses the answer; 'binary' keeps its bytes. */
	response?: 'json' | 'binary';
	/** Milliseconds before the request is abandoned. */
	timeout?: number;
	/** Statuses besides 2xx that the node handles itself (the database download's 302). */
	acceptStatus?: number[];
}

export interface ServiceResponse {
	statusCode: number;
	headers: IDataObject;
	/** Parsed JSON, or a Buffer for 'binary' requests. */
	body: unknown;
}

/** A file fetched from a link (a storage host): never authenticated, never paced. */
export interface DownloadOptions {
	/** 'buffer' (default) or 'stream' (the body is a readable stream, for large files). */
	as?: 'buffer' | 'stream';
	/** The link is a credential (signed): it is kept out of every message. */
	secret?: boolean;
	timeout?: number;
}

export interface DownloadResponse {
	statusCode: number;
	headers: IDataObject;
	body: Buffer | NodeJS.ReadableStream;
}

/** What a node's `run` may call. */
export interface ServiceClient {
	/** The engine's paced, retried request to the service, with the key placed by the credential. */
	request(request: ServiceRequest): Promise<ServiceResponse>;
	/** A GET of a link without the key, retried on 429/500/503 and dropped connections. */
	download(url: string, options?: DownloadOptions): Promise<DownloadResponse>;
}

/**
 * What one item's Options ask of answer reuse beyond n8n's own retries: `testRuns` (Reuse Answers
 * of Test Runs) in `manual` mode, `hours` (Reuse Answers For (Hours), 0 for never) in every other
 * mode (keptAnswers.ts).
 */
export interface ReusePolicy {
	testRuns: boolean;
	hours: number;
}

/**
 * The run settings a node's Options hold, each read and checked where the node's parameters are
 * (parameters/options.ts gives the one every node passes): the engine reads no parameter itself.
 */
export interface RunSettingsReader {
	/** Estimate Credits Only: one answer for the whole run, as its summary is the run's (estimate.ts). */
	estimateOnly(ctx: IExecuteFunctions): boolean;
	/** Send Repeated Values Once for item `itemIndex`. */
	sendRepeatsOnce(ctx: IExecuteFunctions, itemIndex: number): boolean;
	/** Reuse Answers of Test Runs and Reuse Answers For (Hours) for item `itemIndex`. */
	reusePolicy(ctx: IExecuteFunctions, itemIndex: number): ReusePolicy;
}

/**
 * How the engine plans a run's units (jobs.ts), handed to a node's `prepare`: a run and its
 * estimate plan through the same code, and differ only in what this says.
 */
export interface UnitPlanning<Prepared> {
	/** The engine's identity of a unit (jobs.ts, identityOf): a file's first pass counts rows by it. */
	identityOf(prepared: Prepared): string | undefined;
	/**
	 * A file's rows: those its Options choose (Start at Row, At Most Rows, Skip Rows), or every row
	 * (`wholeFile`: the estimate's figures for the whole file beside the slice's).
	 */
	wholeFile: boolean;
	/**
	 * A file's check stops at its first refused value (a run under the default On Error fails there
	 * before any request), or reads on (a Continue setting; an estimate, which counts them all).
	 */
	stopAtRefusal: boolean;
}

/**
 * A service, as the engine runs it: how to read and check one item's parameters, and how to turn
 * them into output. A node file is its parameters plus one of these.
 */
export interface ServiceDefinition<Prepared = ServiceRequest> {
	/** The credential type name, for instance `abstractEmailApi`. */
	credentialType: string;
	/**
	 * The Base URL a credential of that type stands for: its own, or the service's live address
	 * when it is left empty (credentials/shared/liveBaseUrls.ts's serviceCredential gives both).
	 */
	baseUrlOf(credentials: ICredentialDataDecryptedObject): string;
	/** The service's name as a person says it, for error messages ("Email Reputation"). */
	serviceName: string;
	/** Error wording this service needs beyond the suite's (the database download's 403). */
	statusMessages?: Partial<Record<number, string>>;
	/**
	 * The statuses by which this service says the plan's credits are used up (default 422,
	 * "Quota reached"; the email service may answer 403). The first one stops the run's sending.
	 */
	quotaStatuses?: number[];
	/**
	 * What a prepared unit asks of the service, when the prepared unit holds more (its
	 * presentation: the field a file goes in, the value as the item named it): the engine keys it
	 * (jobs.ts, identityOf) to send repeated values once and to find kept answers, so nothing that
	 * only shapes the output may be in it. Undefined for a request that carries a file (always
	 * sent). Default: the prepared unit itself.
	 */
	requestOf?(prepared: Prepared): unknown;
	/**
	 * What a unit's output makes of its answer beyond what was paid for: its presentation (the
	 * domain the item named, the field a file goes in) or a free follow-up (the download of a
	 * processed image). Called for every unit, whether its answer was paid, shared by a repeat or
	 * reused, so it must give the same output from any of them. The answer is counted as paid and
	 * kept before it runs: a failure here fails the unit, not the payment.
	 */
	present?(
		this: IExecuteFunctions,
		itemIndex: number,
		prepared: Prepared,
		answered: INodeExecutionData[],
		client: ServiceClient,
	): Promise<INodeExecutionData[]> | INodeExecutionData[];
	/**
	 * False when answers are too large to keep in memory for n8n's next try of the node or a Retry
	 * of its execution (a database archive): they are fetched again. Default true (keptAnswers.ts).
	 */
	keepAnswersForRetry?: boolean;
	/**
	 * The output of a prepared unit that needs no request (a webmail address Company Enrichment
	 * skips), or undefined for one to send. Such a unit costs nothing: it is not paced, not counted
	 * as answered or sent, and still answered after the run has stopped sending.
	 */
	answerWithoutRequest?(prepared: Prepared): INodeExecutionData[] | undefined;
	/**
	 * Reads and checks item `itemIndex`'s parameters. Throws an input error naming the field; it
	 * runs for every item before the first request, so a bad row costs no credit. An item that
	 * stands for many requests (a bulk CSV file) returns a FanOut of them.
	 */
	prepare(
		this: IExecuteFunctions,
		itemIndex: number,
		planning: UnitPlanning<Prepared>,
	): Promise<Prepared | FanOut<Prepared>> | Prepared | FanOut<Prepared>;
	/**
	 * Sends the item's request(s) and shapes the output items (pairing is added by the engine).
	 * Without it, the prepared request is sent and its JSON answer is the item.
	 */
	run?(
		this: IExecuteFunctions,
		itemIndex: number,
		prepared: Prepared,
		client: ServiceClient,
	): Promise<INodeExecutionData[]>;
}
