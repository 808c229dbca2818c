package ingress

func withErr[T any](_ T, err error) error { return err }
