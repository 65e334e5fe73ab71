package io.wheeltimer.jdbc.internal.table;

import java.util.List;

/**
 * What one claim took: the rows now held, and whether it found as many claimable rows as its limit
 * allowed (then more may be due, and the next poll need not wait). Rows found but locked meanwhile
 * (a run of them started) are counted as found, not taken.
 */
public record Claim(List<PendingRow> taken, boolean full) {

    /** A claim that found nothing. */
    static final Claim NONE = new Claim(List.of(), false);

    /** The rows one statement both found and took, at most {@code limit}. */
    static Claim of(List<PendingRow> taken, int limit) {
        return new Claim(taken, taken.size() >= limit);
    }
}
