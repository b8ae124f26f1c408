// A rate limit as a third party meets it: against `kafana serve --rate-limit 2 --rate-burst 5`,
// a burst of calls is partly refused with RESOURCE_EXHAUSTED, ErrorInfo RATE_LIMITED and a
// RetryInfo delay; after waiting that long a call goes through. Usage: node ratelimit.mjs PROTOCOL URL
import { Code, check, commandLine, decode, done, kafanaClient, run } from "./lib.mjs";

const BURST = 30;

run(async () => {
  const started = Date.now();
  const { protocol, url } = commandLine();
  const kafana = kafanaClient(protocol, url);
  const answers = await Promise.allSettled(
    Array.from({ length: BURST }, () => kafana.listTables({ pageSize: 1 })),
  );
  const refused = answers.filter((a) => a.status === "rejected").map((a) => decode(a.reason));
  check(refused.length > 0, `none of ${BURST} calls at once was refused`);
  for (const got of refused) {
    check(
      got.code === Code.ResourceExhausted && got.info?.reason === "RATE_LIMITED",
      `a refusal that is not a rate limit: ${got.codeName} ${got.info?.reason} ${got.message}`,
    );
    check(got.retryMillis !== undefined && got.retryMillis > 0, `RATE_LIMITED without a RetryInfo delay: ${got.message}`);
  }
  // Wait as RetryInfo says, and again while still refused (other callers may share the budget).
  let wait = Math.max(...refused.map((r) => r.retryMillis));
  const firstWait = wait;
  let retries = 0;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, wait));
    try {
      await kafana.listTables({ pageSize: 1 });
      break;
    } catch (error) {
      const got = decode(error);
      check(got.info?.reason === "RATE_LIMITED" && got.retryMillis > 0, `a retry refused: ${got.codeName} ${got.message}`);
      check(++retries < 20, "still rate limited after 20 waits");
      wait = got.retryMillis;
    }
  }
  done({ protocol, calls: BURST, refused: refused.length, retryMillis: firstWait, retries, millis: Date.now() - started });
});
