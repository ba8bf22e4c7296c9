/**
 * Steps on the inbox page (ADR 0073) that its tests on the gate's localhost and from afar share:
 * reading each outcome's result, and answering the one question with its first option.
 */
import type { Page } from "playwright-core";

/** The result of each outcome the page lists, in its order ("sent", "already_answered", …). */
export function outcomeResults(page: Page): Promise<string[]> {
  return page
    .locator("[data-testid=outcome]")
    .evaluateAll((rows) =>
      rows.map((row) => (row as unknown as { dataset: { result: string } }).dataset.result),
    );
}

/** Picks the question's first option, decides, and answers the result its outcome shows. */
export async function answerQuestionWithFirstOption(page: Page): Promise<string | null> {
  const question = page.locator("[data-testid=item][data-kind=question]");
  await question.locator("[data-testid=option]").first().check();
  const questionId = await question.getAttribute("id");
  await page.click("[data-testid=decide]");
  const answered = page.locator(`[data-testid=outcome][data-item-id="${questionId}"]`);
  await answered.waitFor();
  return answered.getAttribute("data-result");
}
