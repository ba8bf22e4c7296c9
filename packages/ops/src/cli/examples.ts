/** The examples each command prints after its help (`--help`), keyed by command. */
export const EXAMPLES = {
  root: `
Examples:
  t3-connector-ops ls                       every environment's threads, by project
  t3-connector-ops ls --json | jq '.environments[].projects[].threads[] | select(.state=="needs_intervention")'
  t3-connector-ops thread "parser"          one thread by id, title or unique part of a title
  t3-connector-ops alpha create --project website --title "Fix footer" --instance codex \\
      --model gpt-5.6-sol --client-request-id footer-1 < brief.md
  t3-connector-ops wait alpha:footer && echo done

Exit codes: 0 ok, 1 unexpected, 2/3/4 wait (needs a human / failed / timeout), 64 usage or
invalid input, 65 ambiguous reference, 66 not found, 67 refused (guard or T3), 69 unavailable,
75 outcome unknown (read before repeating), 78 config or token file.`,
  environments:
    "\nExamples:\n  t3-connector-ops environments\n  pbpaste | t3-connector-ops environments add mac --url https://mac.tailnet:3773 --alias laptop\n  pbpaste | t3-connector-ops environments add box --ssh box.lan:3773\n  t3-connector-ops diagnose --projects\n  pbpaste | t3-connector-ops pair --environment mac",
  ls: "\nExamples:\n  t3-connector-ops ls\n  t3-connector-ops ls --json\n  t3-connector-ops ls --archived          archived threads only\n  t3-connector-ops ls --settled --archived  threads that are settled or archived",
  thread:
    '\nExamples:\n  t3-connector-ops thread 3f2a…\n  t3-connector-ops thread "Fix flaky"\n  t3-connector-ops alpha thread parser',
  create:
    "\nExamples:\n  t3-connector-ops alpha create --project website --title T --instance codex --model gpt-5.6-sol \\\n      --effort high --client-request-id X < brief.md\n  (a repeat with the same --client-request-id returns the thread with created: false and sends nothing)",
  send: '\nExamples:\n  echo "please add tests" | t3-connector-ops send alpha:parser --message-id m-1\n  t3-connector-ops send "Fix footer" --message-id m-2 --delivery queue_after_active < note.txt',
  settle: '\nExamples:\n  t3-connector-ops settle "Release checklist"',
  snooze: "\nExamples:\n  t3-connector-ops snooze alpha:footer 2026-12-04T09:00:00+01:00",
  interrupt:
    '\nExamples:\n  t3-connector-ops interrupt alpha:migration --operation-id stop-1 --reason "wrong branch"',
  configure:
    '\nExamples:\n  t3-connector-ops configure alpha:parser --model gpt-5.6-luna --effort high --operation-id cfg-1\n  t3-connector-ops configure "Fix footer" --runtime-mode approval-required --interaction-mode plan --operation-id cfg-2\n  (omitted --instance/--model keep the current ones; a repeat with the same --operation-id replays T3\'s receipts)',
  projects:
    "\nExamples:\n  t3-connector-ops alpha projects\n  t3-connector-ops alpha projects --search web --json",
  providers:
    "\nExamples:\n  t3-connector-ops alpha providers --json | jq '.providers[].instanceId'\n  t3-connector-ops alpha providers --instance codex --json | jq '.providers[].models[].slug'",
  list: "\nExamples:\n  t3-connector-ops alpha list --project website --state needs_intervention\n  t3-connector-ops alpha list --search footer --limit 5",
  diff: "\nExamples:\n  t3-connector-ops diff alpha:parser --stat\n  t3-connector-ops diff \"Fix footer\" --thread | less -R\n  t3-connector-ops diff alpha:parser --json | jq '.files[].path'",
  worktree:
    "\nExamples:\n  t3-connector-ops worktree alpha:parser\n  t3-connector-ops worktree parser --json | jq .branch",
  read: '\nExamples:\n  t3-connector-ops alpha read parser\n  t3-connector-ops read alpha:"Fix footer" --max-characters 2000',
  timeline:
    '\nExamples:\n  t3-connector-ops timeline alpha:parser --limit 10\n  t3-connector-ops alpha timeline "Fix footer" --max-characters 500',
  organize:
    '\nExamples:\n  t3-connector-ops organize alpha:parser --pin --operation-id pin-1\n  t3-connector-ops organize "Fix footer" --title "Footer links" --operation-id rename-1\n  t3-connector-ops organize alpha:3f2a… --unarchive --operation-id back-1   (an archived thread: by id)',
  batch:
    "\nExamples:\n  t3-connector-ops alpha batch snooze 5f0c… 9a1b… --batch-id tidy-1 --until 2026-12-08T09:00:00Z\n  t3-connector-ops alpha batch archive 5f0c… --batch-id tidy-2",
  act: '\nExamples:\n  t3-connector-ops alpha act thread.pin --operation-id pin-1 --input \'{"threadId":"…"}\'\n  t3-connector-ops alpha act thread.title --operation-id t-1 < input.json',
  query:
    '\nExamples:\n  t3-connector-ops alpha query thread --input \'{"threadId":"…"}\'\n  t3-connector-ops alpha query attention',
  wait: "\nExamples:\n  t3-connector-ops wait alpha:parser --timeout 600000; echo $?   # 0 done, 2 needs you, 3 failed, 4 timeout",
} as const;
