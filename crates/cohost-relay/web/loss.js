// Loss is visible, never a stall (docs/sharing-e2e.md): where each stream
// chunk goes, by its chunk index. A chunk past the next one expected means
// chunks never came: the stream is asked again from the last chunk shown
// (`room.resume`) and later chunks are set aside (they come again with the
// replay). Unanswered, the ask is repeated after a growing wait, GAP_ASKS
// asks in all; then what is missing is said and the stream is taken up at
// the first chunk seen past the gap. A chunk at or before the last one shown
// is a duplicate: counted by the caller, never shown twice. The same policy
// as `cohost join` (crates/cohost-relay/src/client.rs).

/** How often a gap is asked for before it is given up. */
export const GAP_ASKS = 3;
/** The wait after the first ask; each later one waits half of it longer. */
export const GAP_WAIT_MS = 1000;
/** How long a gap asked `asks` times waits for the replay: 1 s, 1.5 s, 2 s. */
export const gapWait = (asks) => GAP_WAIT_MS * (1 + (Math.max(asks, 1) - 1) / 2);

export class StreamOrder {
  /**
   * @param {{resume: () => void, missing: (stream: string, from: number, to: number) => void, now?: () => number}} hooks
   *   `resume` asks the relay to replay every stream after `last`;
   *   `missing` says chunks `from`..=`to` of `stream` will not come.
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.now = hooks.now || (() => performance.now());
    /** stream -> the last chunk index shown (what `room.resume` names). */
    this.last = {};
    /** stream -> {asks, since, next}: the chunks before `next` never came. */
    this.gaps = new Map();
    /** Streams asked again: chunks past the next one wait for the replay. */
    this.resyncing = new Set();
    /** Streams that failed for a key epoch not held yet. */
    this.awaitingKey = new Set();
    /**
     * Streams the relay could not replay whole (`room.resync`): taken up at
     * whatever chunk comes next. Any other stream starts at chunk 0, so a
     * first chunk past 0 is a gap like any other (the property test of
     * crates/cohost-relay/tests/it/participant_view.rs found a lost first
     * chunk went unnoticed).
     */
    this.anywhere = new Set();
  }

  /**
   * Where a received stream chunk goes: 'show' (the next one: chunk 0 of
   * a new stream, or any chunk of one the relay resynced), 'duplicate' (at
   * or before the last one shown) or 'aside' (past a gap; the stream is
   * asked again).
   */
  place(stream, chunk) {
    const last = this.last[stream];
    if (last !== undefined && chunk <= last) return 'duplicate';
    const next = last === undefined ? 0 : last + 1;
    if (chunk > next && !this.anywhere.has(stream)) {
      this.gap(stream, chunk, true);
      return 'aside';
    }
    return 'show';
  }

  /** The chunk opened and was shown: its stream is in order again. */
  shown(stream, chunk) {
    this.last[stream] = chunk;
    this.anywhere.delete(stream);
    this.resyncing.delete(stream);
    this.gaps.delete(stream);
  }

  /**
   * A chunk that did not open: a gap up to and including it, asked again
   * now, or (`forKey`: sealed under an epoch not held yet) once the key
   * comes. Returns whether this is news for the stream (worth a notice).
   */
  failed(stream, chunk, forKey = false) {
    if (forKey) {
      const first = !this.awaitingKey.has(stream);
      this.awaitingKey.add(stream);
      this.gap(stream, chunk + 1, false);
      return first;
    }
    const first = !this.gaps.has(stream);
    this.gap(stream, chunk + 1, true);
    return first;
  }

  /** A newer room key came: the streams that waited for one are asked again, afresh. */
  keyLearned() {
    for (const s of this.awaitingKey) {
      const g = this.gaps.get(s);
      this.resyncing.delete(s);
      if (g) {
        g.asks = 0;
        this.gap(s, g.next, true);
      }
    }
    this.awaitingKey.clear();
  }

  /** The relay no longer holds part of `stream`: it is taken up at whatever comes next. */
  resynced(stream) {
    this.anywhere.add(stream);
    delete this.last[stream];
    this.gaps.delete(stream);
    this.resyncing.delete(stream);
    this.awaitingKey.delete(stream);
  }

  /** Whether a gap is open (`tick` has work). */
  get waiting() {
    return this.gaps.size > 0;
  }

  /** Chunks of `stream` before `next` never came; `ask`: ask now unless a replay is on its way. */
  gap(stream, next, ask) {
    let g = this.gaps.get(stream);
    if (!g) {
      g = { asks: 0, since: this.now(), next };
      this.gaps.set(stream, g);
    }
    g.next = Math.min(g.next, next);
    if (ask && !this.resyncing.has(stream)) {
      g.asks++;
      g.since = this.now();
      this.resyncing.add(stream);
      this.hooks.resume();
    }
  }

  /** Called often (every quarter of GAP_WAIT_MS): asks again for late gaps, gives up on those asked enough. */
  tick() {
    const now = this.now();
    for (const [stream, g] of [...this.gaps]) {
      if (now - g.since < gapWait(g.asks)) continue;
      if (g.asks < GAP_ASKS) {
        g.asks++;
        g.since = now;
      } else {
        this.gaps.delete(stream);
        this.awaitingKey.delete(stream);
        const last = this.last[stream];
        const from = last === undefined ? 0 : last + 1;
        const to = g.next - 1;
        if (to >= from) {
          this.hooks.missing(stream, from, to);
          this.last[stream] = to;
        }
      }
      this.hooks.resume();
    }
  }
}
