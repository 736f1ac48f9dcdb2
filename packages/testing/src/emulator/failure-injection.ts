import { EmulatorError } from "./emulator-error.js";

/** What a front end knows about one request when it arrives. */
export interface RequestInfo {
  /** `bigquery`, `snowflake`, `databricks`. */
  readonly protocol: string;
  /** The protocol operation: `jobs.insert`, `upload`, `query-request`, `ExecuteStatement`, … */
  readonly operation: string;
  /** The statement shape names the request carries (a script carries several). */
  readonly shapes: readonly string[];
  /** The statement text, when there is one. */
  readonly statement?: string | undefined;
}

export type RequestMatcher = (request: RequestInfo) => boolean;

/** What to do with a matched request: answer with an error, or hold it until the test lets it go. */
export type Failure =
  | { readonly kind: "error"; readonly message?: string; readonly status?: number; readonly reason?: string }
  | { readonly kind: "hold" };

interface Rule {
  readonly match: RequestMatcher;
  readonly failure: Failure;
  remaining: number;
  readonly hit: Deferred<RequestInfo>;
}

interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/**
 * Failure injection for emulators: every request passes `intercept` before it runs. A test
 * arms a rule (fail the next script job; hold the next commit so a test can SIGKILL the client
 * while the request is in flight), and the request log records every request for assertions.
 */
export class FailureInjector {
  readonly requests: RequestInfo[] = [];
  private readonly rules: Rule[] = [];
  private readonly held: (() => void)[] = [];

  /** Arms `failure` for the next `times` requests that `match` (default once). Resolves with the first request hit. */
  inject(match: RequestMatcher, failure: Failure, times = 1): Promise<RequestInfo> {
    const rule: Rule = { match, failure, remaining: times, hit: deferred() };
    this.rules.push(rule);
    return rule.hit.promise;
  }

  /** Fails the next matching request with an error the front end renders in its vendor's shape. */
  failNext(
    match: RequestMatcher,
    message = "injected failure",
    extra: Omit<Extract<Failure, { kind: "error" }>, "kind" | "message"> = {},
  ) {
    return this.inject(match, { kind: "error", message, ...extra });
  }

  /** Holds the next matching request unanswered until `releaseHeld()`; resolves once it arrived. */
  holdNext(match: RequestMatcher): Promise<RequestInfo> {
    return this.inject(match, { kind: "hold" });
  }

  releaseHeld(): void {
    for (const release of this.held.splice(0)) release();
  }

  /** Front ends call this first for every request: throws an injected error, or waits while held. */
  async intercept(request: RequestInfo): Promise<void> {
    this.requests.push(request);
    const rule = this.rules.find((r) => r.remaining > 0 && r.match(request));
    if (!rule) return;
    rule.remaining--;
    rule.hit.resolve(request);
    if (rule.failure.kind === "hold") {
      await new Promise<void>((resolve) => this.held.push(resolve));
      return;
    }
    throw Object.assign(new EmulatorError("injected", rule.failure.message ?? "injected failure"), {
      status: rule.failure.status,
      reason: rule.failure.reason,
    });
  }

  /** Disarms every rule and lets held requests go. */
  reset(): void {
    this.rules.length = 0;
    this.releaseHeld();
  }
}

/** Matches requests by operation and/or statement shape. */
export function requestMatching(options: { readonly operation?: string; readonly shape?: string }): RequestMatcher {
  return (request) =>
    (options.operation === undefined || request.operation === options.operation) &&
    (options.shape === undefined || request.shapes.includes(options.shape));
}
