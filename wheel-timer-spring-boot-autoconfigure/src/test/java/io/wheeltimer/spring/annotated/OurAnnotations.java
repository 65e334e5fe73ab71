package io.wheeltimer.spring.annotated;

import java.lang.annotation.Annotation;
import java.util.List;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.util.ClassUtils;

/** The annotation types of our modules on the class path (not those of the tests). */
final class OurAnnotations {

    private OurAnnotations() {}

    static List<Class<? extends Annotation>> find(String basePackage) {
        ClassPathScanningCandidateComponentProvider scanner = new ClassPathScanningCandidateComponentProvider(false) {
            @Override
            protected boolean isCandidateComponent(AnnotatedBeanDefinition definition) {
                return definition.getMetadata().isAnnotation();
            }
        };
        scanner.addIncludeFilter((reader, factory) -> reader.getClassMetadata().isAnnotation());
        return scanner.findCandidateComponents(basePackage).stream()
                .map(definition -> ClassUtils.resolveClassName(
                        definition.getBeanClassName(), OurAnnotations.class.getClassLoader()))
                .filter(type -> !isTestClass(type))
                .map(OurAnnotations::annotationType)
                .toList();
    }

    private static boolean isTestClass(Class<?> type) {
        var source = type.getProtectionDomain().getCodeSource();
        return source != null && source.getLocation().getPath().contains("/test-classes/");
    }

    @SuppressWarnings("unchecked")
    private static Class<? extends Annotation> annotationType(Class<?> type) {
        return (Class<? extends Annotation>) type;
    }
}
