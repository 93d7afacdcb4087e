if x:
	do()
