package io.wheeltimer;

import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;

/** The model-checking settings every Lincheck test of the core uses. */
final class LincheckScenarios {

    private LincheckScenarios() {}

    /**
     * Model-checks every interleaving of generated scenarios (3 threads, 3 operations each) of
     * {@code testClass}'s operations against sequential runs of the same class, and that no
     * operation ever waits for another thread to make progress (obstruction freedom): a worker that
     * spun on a half-done push would wait as long as its producer stayed preempted.
     */
    static void checkEveryInterleaving(Class<?> testClass) {
        new ModelCheckingOptions()
                .iterations(10)
                .invocationsPerIteration(300)
                .threads(3)
                .actorsPerThread(3)
                .checkObstructionFreedom(true)
                .check(testClass);
    }
}
