package io.wheeltimer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The wheel, driven step by step without threads or clocks, against a reference model: a sorted
 * map from the tick each entry must fire at to the entries. Random schedule / remove / advance
 * sequences, both layouts, wheels of 1, 2, 16 and 512 buckets, ticks of 1 ns to 100 ms.
 */
class TimingWheelPropertyTest {

    record Config(int ticksPerWheel, boolean hierarchical, long tickNanos) {}

    static final class Item extends TimingWheel.Entry {
        final int id;

        Item(int id, long deadline) {
            this.id = id;
            this.deadlineNanos = deadline;
        }
    }

    @Provide
    Arbitrary<Config> configs() {
        return Combinators.combine(
                        Arbitraries.of(1, 2, 16, 512),
                        Arbitraries.of(true, false),
                        Arbitraries.of(1L, 3L, 1_000_000L, 100_000_000L))
                .as(Config::new);
    }

    /** Schedules (deadline offsets in eighths of a tick; special: a far tick), removes, advances. */
    @Provide
    Arbitrary<List<ModelOps.Op>> ops() {
        return ModelOps.sequences(-16, 10, 20, 150);
    }

    @Property(tries = 1500)
    void wheelFiresEachEntryAtTheModelsTick(@ForAll("configs") Config config, @ForAll("ops") List<ModelOps.Op> ops) {
        check(config, ops, false);
    }

    /**
     * With the worker's bounded pre-cascade (a few entries of the next block moved ahead of time
     * before each advance) and its warming reads, every entry still fires at its tick, in
     * scheduling order within a tick.
     */
    @Property(tries = 1000)
    void precascadingChangesNoEntrysTick(@ForAll("configs") Config config, @ForAll("ops") List<ModelOps.Op> ops) {
        check(config, ops, true);
    }

    private void check(Config config, List<ModelOps.Op> ops, boolean precascade) {
        TimingWheel wheel = new TimingWheel(config.tickNanos(), config.ticksPerWheel(), config.hierarchical());
        long tick = config.tickNanos();
        // fire tick -> ids, in scheduling order within a tick
        NavigableMap<Long, List<Integer>> model = new TreeMap<>();
        List<Item> live = new ArrayList<>();
        long[] fireTickOf = new long[ops.size()];
        int nextId = 0;
        for (ModelOps.Op op : ops) {
            switch (op.kind()) {
                case ModelOps.SCHEDULE -> {
                    long now = wheel.currentTick() * tick;
                    long deadline;
                    if (op.special()) {
                        // far: anywhere up to ~2^40 ticks ahead, or "never"
                        deadline = op.arg() % 7 == 0
                                ? Long.MAX_VALUE
                                : saturatedAdd(now, saturatedMultiply(1L << Math.floorMod(op.arg(), 41), tick));
                    } else {
                        deadline = Math.max(0, saturatedAdd(now, op.arg() * tick / 8));
                    }
                    Item item = new Item(nextId++, deadline);
                    long fireTick = Math.max(ceilDiv(deadline, tick), wheel.currentTick() + 1);
                    fireTickOf[item.id] = fireTick;
                    wheel.schedule(item);
                    live.add(item);
                    model.computeIfAbsent(fireTick, t -> new ArrayList<>()).add(item.id);
                }
                case ModelOps.REMOVE -> {
                    if (live.isEmpty()) {
                        continue;
                    }
                    Item item = live.remove((int) (op.arg() % live.size()));
                    assertThat(wheel.remove(item)).isTrue();
                    assertThat(wheel.remove(item)).as("second remove").isFalse();
                    model.get(fireTickOf[item.id]).remove((Integer) item.id);
                }
                default -> {
                    long target = op.special()
                            ? wheel.currentTick() + (1L << Math.floorMod(op.arg(), 21))
                            : (wheel.currentTick() * tick + op.arg() * tick / 8) / tick;
                    long nextEvent = wheel.nextEventTick();
                    NavigableMap<Long, List<Integer>> due = model.headMap(target, true);
                    List<Long> expectedTicks = new ArrayList<>();
                    List<Integer> expectedIds = new ArrayList<>();
                    due.forEach((t, ids) -> ids.forEach(id -> {
                        expectedTicks.add(t);
                        expectedIds.add(id);
                    }));
                    Long firstDue = model.entrySet().stream()
                            .filter(e -> !e.getValue().isEmpty())
                            .map(NavigableMap.Entry::getKey)
                            .findFirst()
                            .orElse(null);
                    if (firstDue != null) {
                        assertThat(nextEvent)
                                .as("next event is never after the first due tick")
                                .isLessThanOrEqualTo(firstDue);
                    }
                    if (precascade) {
                        wheel.precascade((int) (op.arg() % 4) + 1);
                        int budget = (int) (op.arg() % 7);
                        long from = wheel.currentTick() + 1 + op.arg() % 8;
                        assertThat(new ReadAhead(wheel, config.tickNanos())
                                        .warm(from, (int) (op.arg() % 5) + 1, (int) (op.arg() % 3), budget))
                                .as("slots read")
                                .isBetween(0, budget);
                    }
                    List<Long> firedTicks = new ArrayList<>();
                    List<Integer> firedIds = new ArrayList<>();
                    advanceInBoundedSteps(wheel, target, (int) (op.arg() % 5) + 1, (t, entries, count) -> {
                        assertThat(t).as("the sink's tick").isEqualTo(wheel.currentTick());
                        for (int i = 0; i < count; i++) {
                            firedTicks.add(t);
                            firedIds.add(((Item) entries[i]).id);
                            assertThat(entries[i].bucket)
                                    .as("expired entries are unlinked")
                                    .isNull();
                        }
                        return true;
                    });
                    assertThat(firedIds).as("ids fired up to tick %d", target).isEqualTo(expectedIds);
                    assertThat(firedTicks).as("ticks they fired at").isEqualTo(expectedTicks);
                    due.clear();
                    live.removeIf(item -> firedIds.contains(item.id));
                    assertThat(wheel.currentTick()).as("current tick").isGreaterThanOrEqualTo(target);
                }
            }
            assertThat(wheel.size()).as("size").isEqualTo(live.size());
        }
        List<Integer> cleared = new ArrayList<>();
        wheel.clear(e -> cleared.add(((Item) e).id));
        assertThat(cleared)
                .containsExactlyInAnyOrderElementsOf(
                        live.stream().map(i -> i.id).toList());
        assertThat(wheel.size()).isZero();
        assertThat(wheel.nextEventTick()).isEqualTo(TimingWheel.NO_TICK);
    }

    /**
     * Advances to {@code target} as the worker does: calls of {@link TimingWheel#advance} bounded by
     * {@code limit} work each, until one gets through; each must make progress.
     */
    private static void advanceInBoundedSteps(TimingWheel wheel, long target, int limit, TimingWheel.TickSink sink) {
        for (long next = wheel.advance(target, limit, sink); next <= target; ) {
            long before = wheel.currentTick();
            assertThat(wheel.currentTick())
                    .as("stopped early: not yet at the target")
                    .isLessThan(target);
            next = wheel.advance(target, limit, sink);
            assertThat(wheel.currentTick()).as("each call processes a tick").isGreaterThan(before);
        }
    }

    static long ceilDiv(long value, long divisor) {
        if (value <= 0) {
            return 0;
        }
        return value / divisor + (value % divisor == 0 ? 0 : 1);
    }

    static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? (a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : sum;
    }

    static long saturatedMultiply(long a, long b) {
        long high = Math.multiplyHigh(a, b);
        long low = a * b;
        return (high == 0 && low >= 0) || (high == -1 && low < 0) ? low : Long.MAX_VALUE;
    }
}
