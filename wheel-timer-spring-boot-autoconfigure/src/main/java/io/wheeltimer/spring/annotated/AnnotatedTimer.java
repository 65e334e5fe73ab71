package io.wheeltimer.spring.annotated;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.Timer;
import java.util.Arrays;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.NoUniqueBeanDefinitionException;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.config.NamedBeanHolder;

/**
 * The {@link Timer} bean of one annotated method: the bean its annotation names, else the one
 * {@code @Autowired Timer} gets, by Spring's own rules ({@code resolveNamedBean}: the only
 * candidate, else the primary one, else the only default candidate, so that a timer declared with
 * {@code @Bean(defaultCandidate = false)} is used only where it is named), here or in a parent
 * context. {@code @WheelTimeout} and {@code @WheelTimeLimit} both choose their timer through this.
 *
 * <p>A named timer is checked when the method's bean is created, without creating the timer; the
 * one chosen by type is resolved once every singleton exists (or at the first call, if that comes
 * first), since resolving it creates it.
 */
final class AnnotatedTimer {

    private final String annotation;
    private final String method;
    /** Trimmed; empty: chosen by type. */
    private final String name;

    private final ConfigurableListableBeanFactory beanFactory;
    private volatile NamedBeanHolder<Timer> resolved;

    /**
     * @param annotation the annotation, e.g. {@code @WheelTimeout}, for messages
     * @param method the method as {@link AnnotatedMethods#describe} names it, for messages
     * @param name the annotation's {@code timer} attribute; blank: the timer {@code @Autowired Timer} gets
     */
    AnnotatedTimer(String annotation, String method, String name, ConfigurableListableBeanFactory beanFactory) {
        this.annotation = annotation;
        this.method = method;
        this.name = name.trim();
        this.beanFactory = beanFactory;
    }

    /**
     * Whether {@code timer} is a stopped {@link HashedWheelTimer}: why it refuses new timeouts, or
     * why a fired call must not start. Other timers do not say.
     */
    static boolean isStopped(Timer timer) {
        return timer instanceof HashedWheelTimer wheel && wheel.state() == HashedWheelTimer.State.SHUTDOWN;
    }

    /** Whether the annotation names its timer (else it is chosen by type). */
    boolean named() {
        return !name.isEmpty();
    }

    /**
     * Checks, without creating any bean, that a named timer is a {@link Timer} bean here or in a
     * parent context.
     *
     * @throws InvalidWheelAnnotationException naming the method and the Timer beans, if not
     */
    void checkName() {
        if (!named()) {
            return;
        }
        String[] timers = timerBeanNames();
        if (!Arrays.asList(timers).contains(name)) {
            throw new InvalidWheelAnnotationException(
                    annotation,
                    method,
                    "timer '" + name + "' is not the name of an io.wheeltimer.Timer bean",
                    "Timer beans: " + Arrays.toString(timers),
                    "Set " + attribute() + " to the name of one of the Timer beans " + Arrays.toString(timers)
                            + ", or leave it empty to use the Timer that @Autowired Timer gets.");
        }
    }

    /** The timer; resolved on the first call and kept. */
    Timer timer() {
        return resolve().getBeanInstance();
    }

    /** The timer's bean name; resolves the timer if needed. */
    String beanName() {
        return named() ? name : resolve().getBeanName();
    }

    /**
     * The timer and its bean name, resolved once.
     *
     * @throws InvalidWheelAnnotationException naming the method, if no single timer is found by type
     */
    NamedBeanHolder<Timer> resolve() {
        NamedBeanHolder<Timer> holder = resolved;
        if (holder == null) {
            holder = named() ? new NamedBeanHolder<>(name, beanFactory.getBean(name, Timer.class)) : byType();
            resolved = holder;
        }
        return holder;
    }

    private NamedBeanHolder<Timer> byType() {
        try {
            return beanFactory.resolveNamedBean(Timer.class);
        } catch (NoUniqueBeanDefinitionException several) {
            String found = several.getBeanNamesFound() != null
                    ? several.getBeanNamesFound().toString()
                    : Arrays.toString(timerBeanNames());
            throw new InvalidWheelAnnotationException(
                    annotation,
                    method,
                    "there are several Timer beans " + found + " and no single one is primary or a default candidate",
                    "without " + attribute() + ", the Timer that @Autowired Timer gets is used: the only Timer bean,"
                            + " the primary one, or the only one that is a default candidate",
                    "Name the timer with " + attribute() + ", mark one Timer bean @Primary, or declare the others"
                            + " with @Bean(defaultCandidate = false).");
        } catch (NoSuchBeanDefinitionException none) {
            if (none.getBeanType() != null && !Timer.class.equals(none.getBeanType())) {
                throw none;
            }
            throw new InvalidWheelAnnotationException(
                    annotation,
                    method,
                    "there is no io.wheeltimer.Timer bean to use",
                    "the timer is a Timer bean of this context or a parent",
                    "Define a Timer bean, or let the auto-configuration define one (wheel-timer.enabled=true).");
        }
    }

    private String[] timerBeanNames() {
        return BeanFactoryUtils.beanNamesForTypeIncludingAncestors(beanFactory, Timer.class);
    }

    private String attribute() {
        return annotation + "(timer = \"...\")";
    }
}
