#!/usr/bin/env python3
"""Teaching quality of task trajectories (generated/task_trajectories.jsonl).

Usage: python3 scripts/traj_stats.py [generated/task_trajectories.jsonl]

Prints, over all task trajectories:
- start clicks per node: clicks on the taskbar's 'Start' per node of the order;
- close steps: clicks on a title bar's 'Close' (close/reopen detours);
- restating thoughts: thoughts that say no more than the action (once the verb,
  the control text, the typed keys and filler words are removed, at most two
  words are left);
- observations after the fact: descriptions that report the action's result
  ("Click 'X': Clicked 'X'; Saved ...") instead of the screen before it;
- steps per node.
"""
import json
import re
import sys

FILLER = set("""a an the to into in on of and or it its it's this that then so for from with
at by as is be first now next i me my we let's lets
click clicks clicking double-click type typing press pressing select selecting choose
launch start show scroll bring switch dismiss open opens enter down up front window""".split())


def words(s):
    return [w.strip("'") for w in re.findall(r"[a-z0-9']+", s.lower()) if w.strip("'")]


def restates(a):
    t = a.get("thought", "")
    if not t.strip():
        return True
    said = set(words(a.get("control_text", "")))
    keys = a.get("args", {}).get("keys", "")
    said |= set(words(keys))
    rest = [w for w in words(t) if w not in FILLER and w not in said]
    return len(rest) <= 2


RESULT = re.compile(r"^(Click|Double-click|Type|Press|Scroll) .*?: ")


def main(path):
    trajs = [json.loads(l) for l in open(path) if l.strip()]
    nodes = sum(len(t["topological_order"]) for t in trajs)
    steps = sum(len(t["actions"]) for t in trajs)
    starts = closes = restating = after = 0
    for t in trajs:
        for a in t["actions"]:
            click = a.get("function") == "click_input"
            if click and a.get("control_text") == "Start":
                starts += 1
            if click and a.get("control_text") == "Close":
                closes += 1
            if restates(a):
                restating += 1
            if RESULT.match(a.get("description", "")):
                after += 1
    print(f"trajectories            {len(trajs)}")
    print(f"nodes                   {nodes}")
    print(f"steps                   {steps}")
    print(f"steps per node          {steps / max(nodes, 1):.2f}")
    print(f"Start clicks            {starts} ({starts / max(nodes, 1):.2f} per node)")
    print(f"Close clicks            {closes}")
    print(f"restating thoughts      {restating} ({100 * restating / max(steps, 1):.1f}% of steps)")
    print(f"results as observation  {after} ({100 * after / max(steps, 1):.1f}% of steps)")
    distinct = len({a.get('thought', '') for t in trajs for a in t['actions']})
    print(f"distinct thoughts       {distinct}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "generated/task_trajectories.jsonl")
