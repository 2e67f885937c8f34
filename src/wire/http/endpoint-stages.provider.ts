import type { Provider } from '@nestjs/common';
import { ListenRequests } from '../listen/listen-requests.stage';
import { BodilessRequests } from './bodiless-requests.stage';
import { EndpointAuthentication } from './endpoint-authentication';
import { ENDPOINT_STAGES, type EndpointStage } from './endpoint-stage';
import { McpFastPath } from './fast-path';
import { LegacyRequests } from './legacy-requests.stage';
import { MessageChecks } from './message-checks';
import { RequestAdmission } from './request-admission';
import { SdkRequests } from './sdk-requests.stage';

/**
 * The endpoint's stages, in the order a request meets them: admission (the body within its
 * bounds), requests without a body, the message checks, the resource server's authentication,
 * `subscriptions/listen`, the fast path, 2025-era traffic, and the SDK for the rest. Each is a
 * provider of its own; a new stage is a provider and a place in this list.
 */
const STAGES_IN_ORDER = [
  RequestAdmission,
  BodilessRequests,
  MessageChecks,
  EndpointAuthentication,
  ListenRequests,
  McpFastPath,
  LegacyRequests,
  SdkRequests,
] as const;

/**
 * Each stage as a provider, and {@link ENDPOINT_STAGES}: all of them in their order.
 * @internal
 */
export const ENDPOINT_STAGE_PROVIDERS: Provider[] = [
  ...STAGES_IN_ORDER,
  {
    provide: ENDPOINT_STAGES,
    useFactory: (...stages: EndpointStage[]): readonly EndpointStage[] => stages,
    inject: [...STAGES_IN_ORDER],
  },
];
