import { BigQuery } from "@google-cloud/bigquery";
import { OAuth2Client } from "google-auth-library";

/** How to reach BigQuery, from the `[target]` settings. */
export interface ClientSettings {
  readonly project: string;
  readonly location?: string | undefined;
  /** A service account key file; otherwise Application Default Credentials. */
  readonly keyfile?: string | undefined;
  /** Another endpoint than https://bigquery.googleapis.com (a regional endpoint, a proxy, an emulator). */
  readonly apiEndpoint?: string | undefined;
  /** A fixed OAuth access token instead of ADC or a key (short-lived; for proxies and emulators). */
  readonly accessToken?: string | undefined;
}

/**
 * The official client. With a custom endpoint it authenticates only when told to
 * (`useAuthWithCustomEndpoint`). Its own retries of failed requests stay on: sqlload names every
 * job, so a retried `jobs.insert` finds the job it started (409) instead of starting another.
 */
export function openClient(settings: ClientSettings): BigQuery {
  const authClient = settings.accessToken ? fixedTokenClient(settings.accessToken) : undefined;
  return new BigQuery({
    projectId: settings.project,
    ...(settings.location ? { location: settings.location } : {}),
    ...(settings.keyfile ? { keyFilename: settings.keyfile } : {}),
    ...(settings.apiEndpoint ? { apiEndpoint: settings.apiEndpoint, useAuthWithCustomEndpoint: true } : {}),
    ...(authClient ? { authClient } : {}),
  });
}

function fixedTokenClient(token: string): OAuth2Client {
  const client = new OAuth2Client();
  client.setCredentials({ access_token: token, expiry_date: Date.now() + 365 * 86_400_000 });
  return client;
}
