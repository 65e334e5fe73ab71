package io.wheeltimer.spring.annotated;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.aopalliance.intercept.MethodInvocation;

/**
 * Observes a deferred run as {@value #NAME}, the way Spring observes a {@code @Scheduled} run:
 * contextual name = the task description, low-cardinality key values {@code name} (the timer's
 * bean name) and {@code task} (the description), errors recorded. Created inside the caller's
 * restored context, so its parent is the caller's observation and its span joins the caller's
 * trace. Loaded only when micrometer-observation is on the class path.
 */
final class TaskObservation {

    static final String NAME = "wheel.timer.task";

    private TaskObservation() {}

    static Object observe(Object registry, String timerName, String description, MethodInvocation invocation)
            throws Throwable {
        return Observation.createNotStarted(NAME, (ObservationRegistry) registry)
                .contextualName(description)
                .lowCardinalityKeyValue("name", timerName)
                .lowCardinalityKeyValue("task", description)
                .observeChecked(invocation::proceed);
    }
}
