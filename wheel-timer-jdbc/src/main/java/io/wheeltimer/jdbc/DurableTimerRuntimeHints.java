package io.wheeltimer.jdbc;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * The scripts this jar ships as resources, {@code io/wheeltimer/jdbc/schema-*.sql} (read by the Spring
 * Boot schema initializer) and {@code upgrade-*.sql}, so that a native image keeps them. Registered in
 * {@code META-INF/spring/aot.factories}, so it applies to every Spring application that has this jar.
 */
final class DurableTimerRuntimeHints implements RuntimeHintsRegistrar {

    /** The scripts, as resource patterns. */
    static final String[] SCRIPTS = {"io/wheeltimer/jdbc/schema-*.sql", "io/wheeltimer/jdbc/upgrade-*.sql"};

    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        for (String script : SCRIPTS) {
            hints.resources().registerPattern(script);
        }
    }
}
