package io.wheeltimer;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * The steps the model-based property tests draw: schedule, remove (cancel) and advance, five to two to
 * four. A schedule is due in eighths of a tick, from {@code earliestEighths} (late already) to three
 * rotations of the largest wheel ahead; a remove picks one of those still pending; an advance moves 0 to
 * 40 eighths of a tick. Some schedules and advances are {@linkplain Op#special() special}, each test
 * saying what that means for it (a far deadline, a whole rotation).
 */
final class ModelOps {

    /**
     * One step.
     *
     * @param kind {@link #SCHEDULE}, {@link #REMOVE} or {@link #ADVANCE}
     * @param arg eighths of a tick for a schedule or an advance; for a remove, picks one
     * @param special an unusual schedule or advance, as the test defines it
     */
    record Op(int kind, long arg, boolean special) {}

    static final int SCHEDULE = 0;
    static final int REMOVE = 1;
    static final int ADVANCE = 2;

    private ModelOps() {}

    /**
     * Sequences of 1 to {@code maxSteps} steps; one schedule in {@code specialScheduleOneIn} and one advance in
     * {@code specialAdvanceOneIn} is special.
     */
    static Arbitrary<List<Op>> sequences(
            long earliestEighths, int specialScheduleOneIn, int specialAdvanceOneIn, int maxSteps) {
        Arbitrary<Op> schedule = Combinators.combine(
                        Arbitraries.longs().between(earliestEighths, 8L * 3 * 512),
                        Arbitraries.integers().between(0, specialScheduleOneIn - 1))
                .as((eighths, dice) -> new Op(SCHEDULE, eighths, dice == 0));
        Arbitrary<Op> remove = Arbitraries.longs().between(0, Long.MAX_VALUE).map(i -> new Op(REMOVE, i, false));
        Arbitrary<Op> advance = Combinators.combine(
                        Arbitraries.longs().between(0, 40),
                        Arbitraries.integers().between(0, specialAdvanceOneIn - 1))
                .as((eighths, dice) -> new Op(ADVANCE, eighths, dice == 0));
        return Arbitraries.frequencyOf(Tuple.of(5, schedule), Tuple.of(2, remove), Tuple.of(4, advance))
                .list()
                .ofMinSize(1)
                .ofMaxSize(maxSteps);
    }
}
