package io.wheeltimer;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The whole timer (worker thread, hand-off, cancel, stop) on a {@link ManualTicker}, against a
 * reference model: a sorted map from the tick each timeout must fire at to the timeouts. Random
 * schedule / cancel / advance sequences, both layouts, wheels of 1, 2, 16 and 512 buckets, and
 * clocks that start at 0, near {@code Long.MIN_VALUE} and near {@code Long.MAX_VALUE} (so they wrap).
 * Checked after every step: the same timeouts fired, each at the model's tick, none early, none
 * twice, none lost, and the counts are exact.
 */
class HashedWheelTimerPropertyTest {

    record Config(int ticksPerWheel, boolean hierarchical, long startNanos, long tickMillis) {}

    @Provide
    Arbitrary<Config> configs() {
        return Combinators.combine(
                        Arbitraries.of(1, 2, 16, 512),
                        Arbitraries.of(true, false),
                        Arbitraries.of(
                                0L,
                                Long.MIN_VALUE,
                                Long.MIN_VALUE + 7,
                                Long.MAX_VALUE - 1_000_000_000L,
                                Long.MAX_VALUE),
                        Arbitraries.of(1L, 10L, 100L))
                .as(Config::new);
    }

    /** Schedules (delays in eighths of a tick; special: 0, the far future or a whole number of ticks), cancels, advances. */
    @Provide
    Arbitrary<List<ModelOps.Op>> ops() {
        return ModelOps.sequences(-24, 12, 15, 80);
    }

    /** What a task saw when it ran. */
    record Run(int id, long tick, long elapsedNanos) {}

    @Property(tries = 1000)
    void timerFiresEachTimeoutAtTheModelsTick(@ForAll("configs") Config config, @ForAll("ops") List<ModelOps.Op> ops) {
        ManualTicker ticker = new ManualTicker(config.startNanos());
        long tick = TimeUnit.MILLISECONDS.toNanos(config.tickMillis());
        HashedWheelTimer timer = HashedWheelTimer.builder()
                .ticker(ticker)
                .tickDuration(Duration.ofMillis(config.tickMillis()))
                .ticksPerWheel(config.ticksPerWheel())
                .hierarchical(config.hierarchical())
                .build();
        try {
            timer.start();
            long start = config.startNanos();
            List<Run> runs = new ArrayList<>();
            NavigableMap<Long, List<Integer>> model = new TreeMap<>();
            Map<Integer, Long> fireTickOf = new HashMap<>();
            Map<Integer, Long> deadlineOf = new HashMap<>();
            Map<Integer, Timeout> pending = new HashMap<>();
            List<Integer> cancelledCallbacks = new ArrayList<>();
            int nextId = 0;
            for (ModelOps.Op op : ops) {
                long elapsed = ticker.nanoTime() - start;
                switch (op.kind()) {
                    case ModelOps.SCHEDULE -> {
                        int id = nextId++;
                        long delay = op.special()
                                ? (op.arg() % 3 == 0
                                        ? Long.MAX_VALUE
                                        : op.arg() % 3 == 1 ? 0 : (op.arg() & 0xff) * tick)
                                : op.arg() * tick / 8;
                        long deadline = delay <= 0 ? elapsed + 1 : TimingWheelPropertyTest.saturatedAdd(elapsed, delay);
                        long fireTick = TimingWheelPropertyTest.ceilDiv(deadline, tick);
                        TimerTask task = new TimerTask() {
                            @Override
                            public void run(Timeout timeout) {
                                runs.add(new Run(id, timer.runtime.handOff.tick(), ticker.nanoTime() - start));
                            }

                            @Override
                            public void cancelled(Timeout timeout) {
                                cancelledCallbacks.add(id);
                            }
                        };
                        pending.put(id, timer.newTimeout(task, delay, TimeUnit.NANOSECONDS));
                        fireTickOf.put(id, fireTick);
                        deadlineOf.put(id, deadline);
                        model.computeIfAbsent(fireTick, t -> new ArrayList<>()).add(id);
                    }
                    case ModelOps.REMOVE -> {
                        if (pending.isEmpty()) {
                            continue;
                        }
                        List<Integer> ids = new ArrayList<>(pending.keySet());
                        ids.sort(null);
                        int id = ids.get((int) (op.arg() % ids.size()));
                        Timeout timeout = pending.remove(id);
                        assertThat(timeout.cancel())
                                .as("first cancel of a pending timeout")
                                .isTrue();
                        assertThat(timeout.cancel()).as("second cancel").isFalse();
                        assertThat(timeout.isCancelled()).isTrue();
                        model.get(fireTickOf.get(id)).remove((Integer) id);
                    }
                    default -> {
                        long nanos = op.special() ? op.arg() * config.ticksPerWheel() * tick : op.arg() * tick / 8;
                        int before = runs.size();
                        ticker.advance(nanos, TimeUnit.NANOSECONDS);
                        long nowTick = (ticker.nanoTime() - start) / tick;
                        NavigableMap<Long, List<Integer>> due = model.headMap(nowTick, true);
                        List<Run> expected = new ArrayList<>();
                        due.forEach((t, ids) ->
                                ids.forEach(id -> expected.add(new Run(id, t, ticker.nanoTime() - start))));
                        assertThat(runs.subList(before, runs.size()))
                                .as("runs of the advance to tick %d", nowTick)
                                .isEqualTo(expected);
                        for (Run run : expected) {
                            assertThat(run.tick() * tick)
                                    .as("never early")
                                    .isGreaterThanOrEqualTo(deadlineOf.get(run.id()));
                            assertThat(pending.remove(run.id()).isExpired()).isTrue();
                        }
                        due.clear();
                    }
                }
                assertThat(timer.pendingTimeouts()).as("pending").isEqualTo(pending.size());
            }
            TimerStats stats = timer.stats();
            assertThat(stats.scheduled()).isEqualTo(nextId);
            assertThat(stats.expired()).isEqualTo(runs.size());
            assertThat(stats.cancelled()).isEqualTo(cancelledCallbacks.size());
            assertThat(stats.pending()).isEqualTo(pending.size());
            assertThat(runs.stream().map(Run::id).collect(Collectors.toSet()))
                    .as("none twice")
                    .hasSize(runs.size());

            Set<Timeout> unprocessed = timer.stop();
            assertThat(unprocessed)
                    .as("stop() returns exactly the pending ones")
                    .containsExactlyInAnyOrderElementsOf(pending.values());
            assertThat(unprocessed).allMatch(Timeout::isCancelled);
            assertThat(cancelledCallbacks)
                    .as("cancelled() once per cancel, also by stop()")
                    .hasSize(nextId - runs.size())
                    .doesNotHaveDuplicates();
            assertThat(timer.pendingTimeouts()).isZero();
        } finally {
            timer.stop();
        }
    }
}
