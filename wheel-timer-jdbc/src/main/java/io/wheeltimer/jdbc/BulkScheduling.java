package io.wheeltimer.jdbc;

import io.wheeltimer.jdbc.internal.table.TimeoutTable;
import io.wheeltimer.jdbc.internal.table.TimeoutWrite;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * {@code scheduleAll} and {@code cancelAll}: many timeouts in one transaction (the caller's, or one of
 * the timer's own, never auto-commit), written in JDBC batches. All or nothing: every element is
 * checked as {@code schedule} and {@code cancel} check theirs before anything is written, and
 * duplicates collapse, the last one winning. Rows are written in the order of their task and key, so
 * that two bulk calls on the same keys lock them in the same order. What is armed changes only once
 * the transaction commits, as for one {@code schedule}.
 */
final class BulkScheduling {

    /** Keys per statement where a statement names several: well below every driver's parameter limit. */
    private static final int CHUNK = 500;

    private static final Comparator<ArmedTimeouts.Id> ORDER =
            Comparator.comparing(ArmedTimeouts.Id::task).thenComparing(ArmedTimeouts.Id::key);

    private final TimerContext context;
    private final TimerSettings settings;
    private final Scheduling scheduling;
    private final ArmedTimeouts armed;

    BulkScheduling(TimerContext context, Scheduling scheduling, ArmedTimeouts armed) {
        this.context = context;
        this.settings = context.settings();
        this.scheduling = scheduling;
        this.armed = armed;
    }

    int scheduleAll(Collection<DurableTimeout> timeouts) {
        Objects.requireNonNull(timeouts, "timeouts must not be null");
        Map<ArmedTimeouts.Id, DurableTimeout> last = new TreeMap<>(ORDER);
        int index = 0;
        for (DurableTimeout timeout : timeouts) {
            int i = index++;
            Objects.requireNonNull(timeout, () -> "timeouts[" + i + "] must not be null");
            DurableTimeout checked;
            try {
                checked = scheduling.checked(timeout.task(), timeout.key(), timeout.deadline(), timeout.data());
            } catch (IllegalArgumentException | NullPointerException e) {
                throw with(e, "timeouts[" + i + "]: " + e.getMessage());
            }
            last.put(new ArmedTimeouts.Id(checked.task(), checked.key()), checked);
        }
        if (last.isEmpty()) {
            return 0;
        }
        String captured = scheduling.capture();
        TimeoutTable t = context.table();
        long holdBefore = settings.clock().millis() + settings.lookahead().toMillis();
        boolean holding = armed.isHolding();
        List<TimeoutWrite> writes = new ArrayList<>(last.size());
        Map<String, List<String>> heldKeys = new TreeMap<>();
        for (DurableTimeout timeout : last.values()) {
            long deadline = timeout.deadline().toEpochMilli();
            boolean hold = holding && deadline <= holdBefore;
            if (hold) {
                heldKeys.computeIfAbsent(timeout.task(), k -> new ArrayList<>()).add(timeout.key());
            }
            writes.add(new TimeoutWrite(
                    timeout.task(),
                    timeout.key(),
                    deadline,
                    hold ? settings.instanceId() : null,
                    t.nextVersion(0),
                    timeout.data(),
                    captured));
        }
        context.transactions()
                .joinedOrOwnThenOnCommit(
                        () -> {
                            t.upsertAll(writes);
                            // The versions the held rows were written at, locked by this transaction, to arm them.
                            Map<ArmedTimeouts.Id, Long> versions = new HashMap<>();
                            heldKeys.forEach((task, keys) -> chunks(keys)
                                    .forEach(chunk -> t.lockPending(task, chunk)
                                            .forEach((key, version) ->
                                                    versions.put(new ArmedTimeouts.Id(task, key), version))));
                            return versions;
                        },
                        versions -> {
                            for (TimeoutWrite write : writes) {
                                ArmedTimeouts.Id id = new ArmedTimeouts.Id(write.task(), write.key());
                                Long version = versions.get(id);
                                DurableTimeout timeout = last.get(id);
                                if (version != null) {
                                    armed.arm(
                                            new DurableTimeout(id.task(), id.key(), timeout.deadline()),
                                            version,
                                            0,
                                            write.deadline());
                                } else {
                                    armed.forget(id.task(), id.key(), write.version()); // held here before, not now
                                }
                                context.listener().scheduled(id.task());
                            }
                        });
        return writes.size();
    }

    int cancelAll(String task, Collection<String> keys) {
        Objects.requireNonNull(task, "task must not be null");
        Objects.requireNonNull(keys, "keys must not be null");
        Names.name("task", task);
        TreeMap<String, Boolean> distinct = new TreeMap<>();
        int index = 0;
        for (String key : keys) {
            int i = index++;
            Objects.requireNonNull(key, () -> "keys[" + i + "] must not be null");
            try {
                Names.name("keys[" + i + "]", key);
            } catch (IllegalArgumentException e) {
                throw with(e, e.getMessage());
            }
            distinct.put(key, Boolean.TRUE);
        }
        if (distinct.isEmpty()) {
            return 0;
        }
        TimeoutTable t = context.table();
        Map<String, Long> removed = context.transactions()
                .joinedOrOwnThenOnCommit(
                        () -> {
                            Map<String, Long> versions = new TreeMap<>();
                            for (List<String> chunk : chunks(new ArrayList<>(distinct.keySet()))) {
                                Map<String, Long> locked = t.lockPending(task, chunk);
                                List<String> lockedKeys = new ArrayList<>(locked.keySet());
                                t.deletePending(
                                        task,
                                        lockedKeys,
                                        lockedKeys.stream().map(locked::get).toList());
                                versions.putAll(locked);
                            }
                            return versions;
                        },
                        versions -> versions.forEach((key, version) -> {
                            armed.forget(task, key, version);
                            context.listener().cancelled(task);
                        }));
        return removed.size();
    }

    private static List<List<String>> chunks(List<String> keys) {
        List<List<String>> chunks = new ArrayList<>();
        for (int from = 0; from < keys.size(); from += CHUNK) {
            chunks.add(keys.subList(from, Math.min(keys.size(), from + CHUNK)));
        }
        return chunks;
    }

    /** {@code e} of the same kind with {@code message}, naming the element at fault. */
    private static RuntimeException with(RuntimeException e, String message) {
        RuntimeException named = e instanceof NullPointerException
                ? new NullPointerException(message)
                : new IllegalArgumentException(message, e);
        return named;
    }
}
