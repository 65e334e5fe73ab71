package io.wheeltimer.dashboard;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/** In a native image, the resources the dashboard reads: where its script is, and the script. */
final class DashboardRuntimeHints implements RuntimeHintsRegistrar {

    static final String PROPERTIES = "io/wheeltimer/dashboard/dashboard.properties";

    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        hints.resources().registerPattern(PROPERTIES);
        hints.resources().registerPattern("META-INF/resources/webjars/htmx.org/*/dist/htmx.min.js");
    }
}
