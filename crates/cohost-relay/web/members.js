// The agents of a room of several (docs/sharing-e2e.md, "Rooms of several
// agents"): the page learns them only from the host's own word, and a
// co-driver's suggestion can be addressed to one of them.

import { addressed } from './wire.js';

// More than a room holds (8), so a list is never cut short, and few
// enough that a hostile list cannot flood the page.
const MAX_MEMBERS = 32;
const MAX_NAME = 64;

/**
 * The member list a chat message carries, or null: taken only when the
 * host's key signed the chat (`from === 'host'`, as RoomCrypto.open says);
 * a participant's chat may carry the field too, but never speaks for the
 * room. Names are display text: control characters go, length is bounded.
 */
export function hostMembers(msg, from) {
  if (from !== 'host' || !msg || !Array.isArray(msg.members)) return null;
  const names = [];
  for (const n of msg.members.slice(0, MAX_MEMBERS)) {
    if (typeof n !== 'string') continue;
    const clean = n.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim().slice(0, MAX_NAME);
    if (clean && !names.includes(clean)) names.push(clean);
  }
  return names;
}

/**
 * What a co-driver's suggestion says and whom it is for: `@NAME TEXT`
 * typed at the start names the member itself; otherwise the member picked
 * in the page's list, when it is one of the room's; otherwise nobody (the
 * host sends it to the member its own prompts go to).
 */
export function addressedTo(body, picked, members) {
  const typed = addressed(body);
  if (typed) return typed;
  if (picked && members.includes(picked)) return { to: picked, text: body };
  return { text: body };
}
