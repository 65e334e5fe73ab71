package io.wheeltimer;

import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;

/** The model-checking settings every Lincheck test of the core uses. */
final class LincheckScenarios {

    private LincheckScenarios() {}

    /**
     * Model-checks every interleaving of generated scenarios (3 threads, 3 operations each) of
     * {@code testClass}'s operations against sequential runs of the same class.
     */
    static void checkEveryInterleaving(Class<?> testClass) {
        new ModelCheckingOptions()
                .iterations(10)
                .invocationsPerIteration(300)
                .threads(3)
                .actorsPerThread(3)
                .check(testClass);
    }
}
