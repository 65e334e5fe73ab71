package io.wheeltimer.spring.autoconfigure.durable;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Observes each run of a {@code @DurableTimerTask} method as a deferred {@code @WheelTimeout} run is
 * observed: an {@link Observation} named {@value #NAME}, contextual name = the method's description,
 * low-cardinality key values {@code name} (the bean name of the timer that fires it) and
 * {@code task} (the description); errors recorded. With Boot's default handlers this gives the
 * Micrometer timer {@code wheel.timer.task} and a span. Loaded only when micrometer-observation is on
 * the class path; the registry is looked up at the first run, since it may be created after the
 * timer.
 */
final class ObservedTaskRuns implements TaskRunObserver {

    static final String NAME = "wheel.timer.task";

    private final ObjectProvider<ObservationRegistry> registries;
    private final String timerName;
    private volatile ObservationRegistry registry;

    /** Observes the runs with the context's {@link ObservationRegistry}, when it has one. */
    static TaskRunObserver create(BeanFactory beanFactory, String timerName) {
        return new ObservedTaskRuns(beanFactory.getBeanProvider(ObservationRegistry.class), timerName);
    }

    private ObservedTaskRuns(ObjectProvider<ObservationRegistry> registries, String timerName) {
        this.registries = registries;
        this.timerName = timerName;
    }

    @Override
    public void observe(String description, Run run) throws Exception {
        ObservationRegistry observations = registry();
        if (observations == null) {
            run.run();
            return;
        }
        Observation.createNotStarted(NAME, observations)
                .contextualName(description)
                .lowCardinalityKeyValue("name", timerName)
                .lowCardinalityKeyValue("task", description)
                .observeChecked(run::run);
    }

    private ObservationRegistry registry() {
        ObservationRegistry known = registry;
        if (known == null) {
            known = registries.getIfUnique();
            registry = known;
        }
        return known;
    }
}
