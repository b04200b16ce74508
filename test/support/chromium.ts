// Headless Debian Chromium for the page tests and the web view's bench, started the way this
// machine allows: no sandbox as root, and no background networking (the closed network refuses
// Chromium's own connections, many at a time, and slows every start).

import { chromium, type BrowserContext } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A fresh browser on the profile folder `profile` (empty or new); close it when done. */
export function launchChromium(
  profile: string,
  options: { viewport?: { width: number; height: number }; offline?: boolean } = {},
): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, ...options });
}
