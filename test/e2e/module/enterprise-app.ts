import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import {
  Catch,
  ClassSerializerInterceptor,
  ForbiddenException,
  HttpException,
  HttpStatus,
  Injectable,
  InternalServerErrorException,
  Module,
  SetMetadata,
  UnauthorizedException,
  type ArgumentsHost,
  type CallHandler,
  type CanActivate,
  type DynamicModule,
  type ExceptionFilter,
  type ExecutionContext,
  type LoggerService,
  type MiddlewareConsumer,
  type NestInterceptor,
  type NestMiddleware,
  type NestModule,
  type Provider,
} from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, HttpAdapterHost, Reflector } from '@nestjs/core';
import { Exclude } from 'class-transformer';
import { IsNotEmpty, IsString } from 'class-validator';
import { map, type Observable } from 'rxjs';
import {
  LosslessNumber,
  McpArgs,
  McpInputRequest,
  McpInputRequiredResult,
  McpMayRequestInput,
  McpModule,
  McpPrompt,
  McpProtocolException,
  McpContext,
  McpOperationContext,
  McpRequestStateMode,
  McpTool,
  McpToolError,
  RequestStateProtectionError,
  RequestStateProtector,
} from '../../../src/index';
import type { McpContextType } from '../../../src/operations/context/mcp-execution-context';
import { Payload as InvoicePayload } from './billing/payload.dto';
import { Payload as NotePayload } from './notes/payload.dto';
import { startTestServer, type AdapterName, type TestServer } from '../../utils/bootstrap';
import { askOnce, requiredField } from '../../utils/input-asks';
import { askForAmount } from '../../fixtures/amount-form';

// ---------------------------------------------------------------------------------------------
// Identity: what a passport-style setup puts on `req.user`.
// ---------------------------------------------------------------------------------------------

/** The principal the guard (or the session middleware) attaches to the request. */
export interface Principal {
  id: string;
  roles: string[];
}

/** A stand-in for the user directory. */
const ROLES: Readonly<Record<string, readonly string[]>> = {
  alice: ['admin', 'editor'],
  bob: ['editor'],
};

function principal(id: string): Principal {
  return { id, roles: [...(ROLES[id] ?? [])] };
}

/** `Bearer <user>`, scheme case-insensitive. */
function bearerUser(authorization: string | undefined): string | undefined {
  return /^bearer\s+([a-z0-9_-]+)$/i.exec(authorization ?? '')?.[1];
}

/** The session cookie the middleware accepts: `sid=<user>`. */
function sessionUser(cookie: string | undefined): string | undefined {
  for (const pair of (cookie ?? '').split(';')) {
    const [name, value] = pair.trim().split('=');
    if (name === 'sid' && value) return value;
  }
  return undefined;
}

/** What the app's code reads from a request: Express `Request` or `FastifyRequest` alike. */
type AppRequest = {
  headers: IncomingHttpHeaders;
  user?: Principal;
  /** Fastify: the Node request, where `app.use()` middleware put its properties. */
  raw?: IncomingMessage & { user?: Principal };
};

/** The header the app answers every request with. */
export const REQUEST_ID_HEADER = 'x-request-id';
/** The browser front end allowed by CORS. */
export const FRONTEND_ORIGIN = 'http://localhost:5173';
/** Bodies above this get 413 from the MCP endpoint. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * `app.use()` middleware (Express: the Express request; Fastify: the raw Node request): a request
 * id on the response, and the session user from a cookie or the gateway's header.
 */
export function requestIdAndSession(
  req: IncomingMessage & { user?: Principal; requestId?: string },
  res: ServerResponse,
  next: () => void,
): void {
  const id = randomUUID();
  req.requestId = id;
  res.setHeader(REQUEST_ID_HEADER, id);
  const gateway = req.headers['x-authenticated-user'];
  const user = sessionUser(req.headers.cookie) ?? (typeof gateway === 'string' ? gateway : '');
  if (user) req.user = principal(user);
  next();
}

/** How many requests the module middleware saw. */
@Injectable()
export class RequestCounter {
  count = 0;
}

/** Module middleware (`consumer.apply(...).forRoutes('*')`) counting every request. */
@Injectable()
export class CountingMiddleware implements NestMiddleware {
  constructor(private readonly counter: RequestCounter) {}

  use(_req: unknown, _res: unknown, next: () => void): void {
    this.counter.count++;
    next();
  }
}

// ---------------------------------------------------------------------------------------------
// Guard, interceptors, filters: written for HTTP, as in any Nest app.
// ---------------------------------------------------------------------------------------------

export const IS_PUBLIC = 'isPublic';
/** Lets a handler through without a user. */
export const Public = () => SetMetadata(IS_PUBLIC, true);
/** Roles a handler requires. */
export const Roles = Reflector.createDecorator<string[]>();

/**
 * A global, passport-style guard: `Authorization: Bearer <user>` on the real HTTP request, or the
 * user the session middleware found; sets `req.user`; then checks `@Roles()`.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const req = context.switchToHttp().getRequest<AppRequest>();
    const fromHeader = bearerUser(req.headers.authorization);
    if (fromHeader) req.user = principal(fromHeader);
    else req.user ??= req.raw?.user;
    const user = req.user;
    if (!user) throw new UnauthorizedException();
    const required = this.reflector.getAllAndOverride(Roles, targets) ?? [];
    if (!required.every((role) => user.roles.includes(role))) throw new ForbiddenException();
    return true;
  }
}

/** The usual "wrap every response" interceptor. */
@Injectable()
export class WrapResultsInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(map((data: unknown) => ({ data })));
  }
}

/**
 * A catch-all filter in the style of the Nest docs: answers every exception as JSON through the
 * HTTP adapter, whatever the platform.
 */
@Catch()
export class CatchEverythingFilter implements ExceptionFilter {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const { httpAdapter } = this.adapterHost;
    const http = host.switchToHttp();
    const status =
      exception instanceof HttpException ? exception.getStatus() : HttpStatus.INTERNAL_SERVER_ERROR;
    httpAdapter.reply(
      http.getResponse(),
      {
        statusCode: status,
        path: httpAdapter.getRequestUrl(http.getRequest()),
        timestamp: new Date().toISOString(),
      },
      status,
    );
  }
}

/** What the MCP-aware filter answers every MCP failure with. */
export const FILTER_ERROR = { code: -32050, message: 'Handled by filter' };

/** A catch-all filter that knows about MCP and takes over there. */
@Catch()
export class McpAwareFilter implements ExceptionFilter {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType<McpContextType>() === 'mcp')
      throw new McpProtocolException(FILTER_ERROR.code, FILTER_ERROR.message);
    const status =
      exception instanceof HttpException ? exception.getStatus() : HttpStatus.INTERNAL_SERVER_ERROR;
    this.adapterHost.httpAdapter.reply(
      host.switchToHttp().getResponse(),
      { statusCode: status },
      status,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// A KMS-style request-state protector, provided by the app module.
// ---------------------------------------------------------------------------------------------

/** Counts what the KMS was asked to do. */
@Injectable()
export class KmsAudit {
  seals = 0;
  opens = 0;
}

/** Prefix of every token {@link KmsStyleProtector} seals. */
export const KMS_TOKEN_PREFIX = 'kms1.';

/**
 * Stands in for envelope encryption with a KMS data key: AES-256-GCM under its own key, token
 * `kms1.<iv>.<ciphertext>.<tag>` (base64url), counted in {@link KmsAudit}.
 */
@Injectable()
export class KmsStyleProtector implements RequestStateProtector {
  private readonly dataKey = randomBytes(32);

  constructor(private readonly audit: KmsAudit) {}

  seal(plaintext: Uint8Array, associatedData: Uint8Array): string {
    this.audit.seals++;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.dataKey, iv).setAAD(associatedData);
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return `${KMS_TOKEN_PREFIX}${[iv, ciphertext, cipher.getAuthTag()].map((part) => part.toString('base64url')).join('.')}`;
  }

  open(token: string, associatedData: Uint8Array): Uint8Array {
    this.audit.opens++;
    if (!token.startsWith(KMS_TOKEN_PREFIX)) throw new RequestStateProtectionError('malformed');
    const parts = token.slice(KMS_TOKEN_PREFIX.length).split('.');
    if (parts.length !== 3) throw new RequestStateProtectionError('malformed');
    const [iv, ciphertext, tag] = parts.map((part) => Buffer.from(part, 'base64url'));
    if (iv.length !== 12 || tag.length !== 16) throw new RequestStateProtectionError('malformed');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.dataKey, iv).setAAD(associatedData);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
    } catch (_error) {
      throw new RequestStateProtectionError('authentication_failed');
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Operations.
// ---------------------------------------------------------------------------------------------

/** Arguments of `echo_post`. */
export class PostDto {
  @IsString()
  @IsNotEmpty()
  title!: string;

  @IsString()
  body!: string;
}

/** What `echo_post` returns; `ClassSerializerInterceptor` drops the excluded field. */
export class PostView {
  @Exclude()
  readonly internalNote = 'not for clients';

  constructor(
    readonly title: string,
    readonly body: string,
  ) {}
}

/** Sealed into the framework state of `publish`; must never be readable on the wire. */
export const STATE_MARKER = 'marker-7f1e-plaintext-state';
/** What the plain-Error tool throws; must never reach the wire. */
export const LEAKY_MESSAGE = 'SELECT * FROM users WHERE name = $1 -- password=hunter2';
/** What the throwing completer throws; must never reach the wire. */
export const COMPLETER_SECRET = 'secret completer detail';

/** Who completed `publish`, in order. */
@Injectable()
export class PublishLog {
  readonly completedBy: string[] = [];
}

/** Holds usage reports back until released, when a test must be listening before one completes. */
@Injectable()
export class ReportGate {
  private held: Promise<void> | undefined;
  private open: (() => void) | undefined;

  /** Reports started from now on wait for {@link release}. */
  hold(): void {
    this.held = new Promise((resolve) => (this.open = resolve));
  }

  release(): void {
    this.open?.();
    this.held = undefined;
  }

  /** Resolves when reports may finish. */
  passed(): Promise<void> {
    return this.held ?? Promise.resolve();
  }
}

/** What a value looks like to the handler: exact number text, or its JavaScript type. */
function shapeOf(value: unknown): string {
  return value instanceof LosslessNumber
    ? `LosslessNumber ${value.value}`
    : `${typeof value} ${String(value)}`;
}

const confirmSchema = requiredField('confirm', 'boolean');

/** Tools of two "feature modules" whose DTOs share the class name `Payload`. */
@Injectable()
export class SameNamedDtoTools {
  @Public()
  @McpTool({ name: 'add_note', description: 'Adds a note' })
  addNote(@McpArgs() payload: NotePayload): string {
    return `note: ${payload.text}`;
  }

  @Public()
  @McpTool({ name: 'bill', description: 'Bills an amount' })
  bill(@McpArgs() payload: InvoicePayload): string {
    return `billed: ${payload.cents}`;
  }
}

@Injectable()
export class EnterpriseTools {
  constructor(
    private readonly published: PublishLog,
    private readonly reportGate: ReportGate,
  ) {}

  @Public()
  @McpTool({ name: 'echo_post', description: 'Echoes a post (class-validator DTO)' })
  echoPost(@McpArgs() post: PostDto): PostView {
    return new PostView(post.title, post.body);
  }

  @McpTool({ name: 'whoami', description: 'The caller, as the guard put it on req.user' })
  whoami(@McpContext() ctx: McpOperationContext): string {
    return (ctx.http.request.user as Principal).id;
  }

  @McpTool({
    name: 'usage_report',
    description: 'Builds the caller’s usage report (a task when asked)',
    taskSupport: 'optional',
  })
  async usageReport(@McpContext() ctx: McpOperationContext): Promise<string> {
    await new Promise((done) => setTimeout(done, 300));
    await this.reportGate.passed();
    return `usage report for ${(ctx.http.request.user as Principal).id}`;
  }

  @Public()
  @McpTool({
    name: 'exact_amount',
    description: 'Asks for an amount; reports how the argument and the answer arrived',
    inputSchema: { type: 'object', properties: { amount: { type: 'number' } } },
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  exactAmount(
    @McpArgs() args: { amount?: unknown },
    @McpContext() ctx: McpOperationContext,
  ): McpInputRequiredResult | Record<string, string> {
    const answer = ctx.inputResponses.find('amount');
    if (answer?.kind === 'elicitation' && answer.action === 'accept')
      return { argument: shapeOf(args.amount), answer: shapeOf(answer.content?.amount) };
    return askForAmount();
  }

  @McpTool({
    name: 'publish',
    description: 'Publishes after the caller confirms (sealed framework state)',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
    inputSchema: { type: 'object', properties: { title: { type: 'string' } } },
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  publish(
    @McpArgs() args: { title?: string },
    @McpContext() ctx: McpOperationContext,
  ): McpInputRequiredResult | string {
    const caller = (ctx.http.request.user as Principal).id;
    const state = ctx.requestState.framework<{ marker: string; askedBy: string }>();
    const answer = state ? ctx.inputResponses.find('confirm') : undefined;
    if (!state || answer?.kind !== 'elicitation') {
      return askOnce(
        'confirm',
        McpInputRequest.elicitForm({
          message: `Publish "${args.title ?? 'untitled'}"?`,
          requestedSchema: confirmSchema,
        }),
        { marker: STATE_MARKER, askedBy: caller },
      );
    }
    if (answer.action !== 'accept' || answer.content?.confirm !== true) return 'Not published';
    this.published.completedBy.push(caller);
    return `Published "${args.title ?? 'untitled'}" for ${caller}`;
  }

  @Public()
  @McpTool({ name: 'quota_exceeded', description: 'Fails with a tool error' })
  quotaExceeded(): never {
    throw new McpToolError('Quota exceeded for project 7');
  }

  @Public()
  @McpTool({ name: 'leaky_query', description: 'Fails with a plain Error' })
  leakyQuery(): never {
    throw new Error(LEAKY_MESSAGE);
  }

  @Public()
  @McpTool({ name: 'db_down', description: 'Fails with a 5xx HttpException' })
  dbDown(): never {
    throw new InternalServerErrorException('db down');
  }
}

@Injectable()
export class EnterprisePrompts {
  @Public()
  @McpPrompt({
    name: 'draft_reply',
    description: 'Drafts a reply',
    arguments: [
      { name: 'tone', description: 'Tone of voice' },
      { name: 'topic', description: 'What it is about' },
    ],
    complete: {
      tone: (value) => ['formal', 'friendly', 'firm'].filter((tone) => tone.startsWith(value)),
      topic: () => {
        throw new Error(COMPLETER_SECRET);
      },
    },
  })
  draftReply(@McpArgs('tone') tone: string): string {
    return `Draft a ${tone ?? 'neutral'} reply`;
  }

  @Roles(['admin'])
  @McpPrompt({
    name: 'admin_report',
    description: 'A report only admins may draft',
    arguments: [{ name: 'team', description: 'Which team' }],
    complete: {
      team: (value) => ['core', 'infra', 'growth'].filter((team) => team.startsWith(value)),
    },
  })
  adminReport(@McpArgs('team') team: string): string {
    return `Report on ${team}`;
  }
}

// ---------------------------------------------------------------------------------------------
// The app.
// ---------------------------------------------------------------------------------------------

/** Which global exception filter the app installs. */
export type FilterKind = 'http' | 'mcp-aware';

@Module({})
export class EnterpriseAppModule implements NestModule {
  static register(filter: FilterKind): DynamicModule {
    const providers: Provider[] = [
      RequestCounter,
      PublishLog,
      ReportGate,
      KmsAudit,
      EnterpriseTools,
      SameNamedDtoTools,
      EnterprisePrompts,
      { provide: RequestStateProtector, useClass: KmsStyleProtector },
      { provide: APP_GUARD, useClass: AuthGuard },
      {
        provide: APP_INTERCEPTOR,
        useFactory: (reflector: Reflector) => new ClassSerializerInterceptor(reflector),
        inject: [Reflector],
      },
      { provide: APP_INTERCEPTOR, useClass: WrapResultsInterceptor },
      {
        provide: APP_FILTER,
        useClass: filter === 'http' ? CatchEverythingFilter : McpAwareFilter,
      },
    ];
    return {
      module: EnterpriseAppModule,
      imports: [
        McpModule.forRoot({
          serverInfo: { name: 'enterprise', version: '1.0.0' },
          http: { maxRequestBodyBytes: MAX_BODY_BYTES },
        }),
      ],
      providers,
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(CountingMiddleware).forRoutes('*');
  }
}

/**
 * Boots the app the way its `main.ts` would (`app.use`, `enableCors`, then `listen`) on a free
 * loopback port, logging to `logger`.
 */
export async function startEnterpriseApp(
  adapter: AdapterName,
  filter: FilterKind,
  logger: LoggerService,
): Promise<TestServer> {
  return startTestServer(
    adapter,
    { imports: [EnterpriseAppModule.register(filter)] },
    '/mcp',
    { logger },
    (app) => {
      app.use(requestIdAndSession);
      app.enableCors({ origin: FRONTEND_ORIGIN, exposedHeaders: [REQUEST_ID_HEADER] });
    },
  );
}
