package io.wheeltimer.spring.autoconfigure.durable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * The records Jackson writes by reflection for the durable timeouts' endpoints, which their
 * operations' signatures do not declare: the {@code "durable"} section of the {@code wheeltimer}
 * endpoint (a value of a {@code Map<String, Object>}), and every answer of the
 * {@code durabletimeouts} endpoint (inside a {@code WebEndpointResponse<?>}, so that it can answer
 * 404 and 400 too).
 */
final class DurableTimerEndpointRuntimeHints implements RuntimeHintsRegistrar {

    /** What the endpoints answer with. */
    static final Class<?>[] ANSWERS = {
        DurableTimerEndpointContributor.DurableDescriptor.class,
        DurableTimeoutsEndpoint.OverviewDescriptor.class,
        DurableTimeoutsEndpoint.TimeoutsDescriptor.class,
        DurableTimeoutsEndpoint.TimeoutDescriptor.class,
        DurableTimeoutsEndpoint.RemovedDescriptor.class,
        DurableTimeoutsEndpoint.ProblemDescriptor.class
    };

    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), ANSWERS);
    }
}
