import type { LosslessNumber } from 'lossless-json';

/** A value in accepted form content: text, an exact number, a boolean, or a multi-select. @publicApi */
export type McpElicitValue = string | LosslessNumber | boolean | string[];

/** An answered elicitation. `content` is present only for `accept`. @publicApi */
export interface McpElicitationResponse {
  readonly kind: 'elicitation';
  readonly action: 'accept' | 'decline' | 'cancel';
  readonly content: Readonly<Record<string, McpElicitValue>> | undefined;
}

/** A completed sampling request. @publicApi */
export interface McpSamplingResponse {
  readonly kind: 'sampling';
  readonly role: 'user' | 'assistant';
  readonly content: unknown;
  readonly model: string;
  readonly stopReason: string | undefined;
}

/** The client's roots. @publicApi */
export interface McpRootsResponse {
  readonly kind: 'roots';
  readonly roots: ReadonlyArray<{ readonly uri: string; readonly name?: string }>;
}

/**
 * One input response, validated against the protocol's result shapes (not against the schema the
 * server asked with — that is the application's job).
 *
 * @publicApi
 */
export type McpInputResponse = McpElicitationResponse | McpSamplingResponse | McpRootsResponse;
